// The sandbox page's "Event triggered: 1 postback sent." says what a Trigger just did, once: the browser that
// triggered sees it on the page the trigger leads to, and neither a reload of that page nor its address opened again
// (a bookmark, a shared link, another browser) shows it, as if the event had just been triggered again.

import assert from "node:assert/strict";
import { contentHook, jive, register, signIn, withReceiver, withSandbox } from "./_mounted.ts";

const NOTICE = /Event triggered: 1 postback sent\./;

Deno.test("the sandbox's trigger notice shows once: not on reload, nor at its address opened again", async () => {
  await withReceiver(async (callback) => {
    await withSandbox(async (env) => {
      const tokens = await signIn(env);
      const hook = await jive(await register(env, tokens.access_token, contentHook(env, callback)));
      const jar = new Map<string, string>();
      /** A GET as a browser sends it: the cookies it holds, and those the answer sets kept (or dropped). */
      const browse = async (url: string, init: RequestInit = {}): Promise<Response> => {
        const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
        const res = await fetch(url, { ...init, redirect: "manual", headers: { ...init.headers, cookie } });
        for (const set of res.headers.getSetCookie()) {
          const [pair] = set.split(";");
          const [name, value] = [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
          if (/max-age=0/i.test(set) || value === "") jar.delete(name);
          else jar.set(name, value);
        }
        return res;
      };
      const triggered = await browse(`${env.base}/trigger`, {
        method: "POST",
        headers: { Origin: env.origin, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ webhookId: String(hook.id) }),
      });
      await triggered.body?.cancel();
      assert.equal(triggered.status, 303);
      const location = new URL(triggered.headers.get("location")!, env.origin).href;

      const first = await browse(location);
      assert.match(await first.text(), NOTICE, "the page the trigger leads to says what it did");

      const reload = await browse(location);
      assert.doesNotMatch(await reload.text(), NOTICE, "a reload shows the notice again");
      assert.equal(first.headers.get("cache-control"), "no-store", "Back would bring it from the HTTP cache");

      const shared = await fetch(location);
      assert.doesNotMatch(await shared.text(), NOTICE, "the address opened elsewhere shows the notice");
    });
  });
});
