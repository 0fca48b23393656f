// The sandbox page as a screen reader user meets it: after a trigger its notice counts the postbacks in words
// ("1 postback sent", not "1 postback(s) sent") and takes focus, as the console's notices do, and each hook's Trigger
// button says which hook it triggers (a list of "Trigger", "Trigger", ... named none).

import assert from "node:assert/strict";
import { Window } from "happy-dom";
import { contentHook, jive, register, signIn, withReceiver, withSandbox } from "./_mounted.ts";

Deno.test("the sandbox page says '1 postback sent', focuses that notice, and names each hook's Trigger", async () => {
  await withReceiver(async (callback) => {
    await withSandbox(async (env) => {
      const tokens = await signIn(env);
      const one = await jive(await register(env, tokens.access_token, contentHook(env, callback)));
      await jive(await register(env, tokens.access_token, contentHook(env, `${callback}/2`)));
      const triggered = await fetch(`${env.base}/trigger`, {
        method: "POST",
        headers: { Origin: env.origin },
        body: new URLSearchParams({ webhookId: String(one.id) }),
        redirect: "manual",
      });
      await triggered.body?.cancel();
      const window = new Window({ url: env.base });
      try {
        // As the browser that triggered (its cookie lets the page show the notice, once).
        const cookie = triggered.headers.getSetCookie()[0].split(";")[0];
        window.document.write(await (await fetch(triggered.headers.get("location")!, { headers: { cookie } })).text());
        const notice = window.document.querySelector("#triggered");
        assert.equal(notice?.textContent?.trim(), "Event triggered: 1 postback sent.");
        assert.equal(notice?.getAttribute("role"), "status");
        assert.equal(notice?.getAttribute("tabindex"), "-1");
        assert.ok(notice?.hasAttribute("autofocus"));
        const names = [...window.document.querySelectorAll("#hooks button")].map((b) =>
          b.getAttribute("aria-label") ?? b.textContent
        );
        assert.equal(names.length, 2);
        assert.equal(new Set(names).size, 2, JSON.stringify(names));
        assert.match(names[0]!, new RegExp(`^Trigger (webhook|hook) ${one.id}$`));
      } finally {
        await window.happyDOM.close();
      }
    });
  });
});
