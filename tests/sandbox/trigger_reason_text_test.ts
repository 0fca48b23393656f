// A failed postback's reason on the sandbox page after Trigger is text: one holding markup is shown as written, never
// run, and a long one is cut ("…"), as the console's hook page shows a delivery's reason.

import assert from "node:assert/strict";
import { Window } from "happy-dom";
import { contentHook, jive, register, signIn, withSandbox } from "./_mounted.ts";

const MARKUP = `<script>alert("x")</script><b id="bold">bold</b>`;

/** Presses Trigger (all hooks) as the page's form does; the redirect answered, its body dropped. */
async function trigger(env: { base: string; origin: string }): Promise<Response> {
  const triggered = await fetch(`${env.base}/trigger`, {
    method: "POST",
    headers: { Origin: env.origin },
    body: new URLSearchParams({}),
    redirect: "manual",
  });
  await triggered.body?.cancel();
  return triggered;
}

Deno.test("a failed postback's reason holding markup is shown as text, and a long one is cut", async () => {
  const failing: typeof fetch = () => Promise.reject(new Error(`${MARKUP} ${"x".repeat(2000)}`));
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    await jive(await register(env, tokens.access_token, contentHook(env, "http://callback.example/hook")));
    const triggered = await trigger(env);
    const cookie = triggered.headers.getSetCookie()[0].split(";")[0];
    const html = await (await fetch(triggered.headers.get("location")!, { headers: { cookie } })).text();
    assert.doesNotMatch(html, /<script>alert/);
    const window = new Window({ url: env.base });
    try {
      window.document.write(html);
      const item = window.document.querySelector("#triggered li");
      assert.ok(item, html);
      assert.equal(window.document.querySelector("#bold") === null, true, "an element made of the text");
      const text = item.textContent!.replace(/\s+/g, " ").trim();
      assert.ok(text.includes(MARKUP), text);
      assert.ok(text.startsWith("http://callback.example/hook: the platform could not reach the callback ("), text);
      assert.ok(text.length < 400, `cut: ${text.length} characters`);
      assert.ok(text.endsWith("…)."), text.slice(-20));
    } finally {
      await window.happyDOM.close();
    }
  }, { fetch: failing });
});

Deno.test("the reasons of many failed postbacks keep the notice cookie under a browser's limit, the rest counted", async () => {
  const failing: typeof fetch = () => Promise.reject(new Error(`é ${"x".repeat(2000)}`));
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    for (let i = 0; i < 30; i++) {
      await jive(await register(env, tokens.access_token, contentHook(env, `http://callback.example/hook/${i}`)));
    }
    const triggered = await trigger(env);
    const setCookie = triggered.headers.getSetCookie()[0];
    assert.ok(setCookie.length < 4096, `${setCookie.length} bytes`);
    const html = await (await fetch(triggered.headers.get("location")!, {
      headers: { cookie: setCookie.split(";")[0] },
    })).text();
    const window = new Window({ url: env.base });
    try {
      window.document.write(html);
      const notice = window.document.querySelector("#triggered")!.textContent!.replace(/\s+/g, " ");
      assert.match(notice, /Event triggered: 30 postbacks sent, 30 failed\./);
      const listed = window.document.querySelectorAll("#triggered li").length;
      assert.ok(listed > 0 && listed < 30, String(listed));
      assert.match(notice, new RegExp(`${30 - listed} more failed`));
    } finally {
      await window.happyDOM.close();
    }
  }, { fetch: failing });
});
