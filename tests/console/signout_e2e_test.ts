// Sign-out in Chromium: Back afterwards leads to sign-in, never to the pages
// the browser kept of the session (its cache and the back/forward cache held
// them, data and all: on a shared computer, the next user's view), also when
// the session ended elsewhere and Back loads a page from the HTTP cache.

import assert from "node:assert/strict";
import { browserTestOptions, withBrowser } from "../_chromium.ts";
import { connectSandbox, csrfOf, signIn, startConsole } from "./_helpers.ts";

Deno.test({
  name: "after sign-out, Back shows none of the signed-in pages: the sign-out clears what the browser kept",
  ...browserTestOptions,
  fn: async () => {
    const t = await startConsole({ buildAssets: true });
    try {
      const client = await signIn(t.origin);
      await connectSandbox(client, t.origin);
      const signout = await client.post("/signout", { _csrf: csrfOf(await client.text("/", 200)) });
      await signout.body?.cancel();
      assert.equal(signout.status, 303);
      assert.equal(signout.headers.get("clear-site-data"), '"cache"');
      const fresh = await signIn(t.origin);
      await withBrowser(async (browser) => {
        const page = await browser.newPage();
        await page.setCookie({ name: "cw_session", value: fresh.cookies.get("cw_session")!, url: t.origin });
        await page.goto(`${t.origin}/communities/sandbox-tenant`, { waitUntil: "load" });
        await page.goto(`${t.origin}/webhooks`, { waitUntil: "load" });
        assert.match(await page.evaluate(() => document.body.innerText), /Sandbox User/);
        await Promise.all([
          page.waitForNavigation({ waitUntil: "load" }),
          page.click("form[action='/signout'] button"),
        ]);
        assert.match(new URL(page.url()).pathname, /^\/signin$/);
        for (const step of ["first", "second"]) {
          await page.goBack({ waitUntil: "load" });
          // Restored from the back/forward cache, the page shows nothing (innerText leaves hidden text out) until
          // it knows the session ended, then reloads into sign-in; the reload may end this first look.
          const first = await page.evaluate(() => document.body.innerText).catch(() => "");
          assert.doesNotMatch(first, /Sandbox User|Tokens present/, `${step} Back, restored`);
          await page.waitForFunction(() => location.pathname === "/signin", { timeout: 15_000 });
          const text = await page.evaluate(() => document.body.innerText);
          assert.doesNotMatch(text, /Sandbox User|Tokens present/, `${step} Back`);
          assert.match(text, /Sign in/);
        }
      });
    } finally {
      await t.close();
    }
  },
});

Deno.test({
  name: "a page Back loads from the HTTP cache after the session ended elsewhere shows nothing, and leads to sign-in",
  ...browserTestOptions,
  fn: async () => {
    const t = await startConsole({ buildAssets: true });
    try {
      const client = await signIn(t.origin);
      await connectSandbox(client, t.origin);
      await withBrowser(async (browser) => {
        const page = await browser.newPage();
        await page.setCookie({ name: "cw_session", value: client.cookies.get("cw_session")!, url: t.origin });
        await page.goto(`${t.origin}/communities/sandbox-tenant`, { waitUntil: "load" });
        await page.goto(`${t.origin}/webhooks`, { waitUntil: "load" });
        // The session ends on the server (expiry, or a sign-out in another browser): nothing reaches this one.
        const out = await client.post("/signout", { _csrf: csrfOf(await client.text("/", 200)) });
        await out.body?.cancel();
        const fromCache: boolean[] = [];
        page.on("response", (r) => {
          if (r.request().isNavigationRequest()) fromCache.push(r.fromCache());
        });
        await page.goBack({ waitUntil: "load" });
        const first = await page.evaluate(() => document.body.innerText).catch(() => "");
        assert.doesNotMatch(first, /Sandbox User|Tokens present/, "shown from the cache");
        await page.waitForFunction(() => location.pathname === "/signin", { timeout: 15_000 });
        assert.doesNotMatch(await page.evaluate(() => document.body.innerText), /Sandbox User|Tokens present/);
        assert.equal(fromCache[0], true, "Back loaded the page from the HTTP cache, as this test means it to");
      }, { args: ["--disable-features=BackForwardCache"] });
    } finally {
      await t.close();
    }
  },
});

Deno.test({
  name:
    "a page Back loads from the HTTP cache after another user signed in shows that user's page, never the last one's",
  ...browserTestOptions,
  fn: async () => {
    const t = await startConsole({ buildAssets: true });
    try {
      const first = await signIn(t.origin);
      const second = await signIn(t.origin);
      const csrfA = csrfOf(await first.text("/", 200));
      const csrfB = csrfOf(await second.text("/", 200));
      await withBrowser(async (browser) => {
        const page = await browser.newPage();
        await page.setCookie({ name: "cw_session", value: first.cookies.get("cw_session")!, url: t.origin });
        await page.goto(`${t.origin}/communities/sandbox-tenant`, { waitUntil: "load" });
        await page.goto(`${t.origin}/webhooks`, { waitUntil: "load" });
        // The first session ends elsewhere, and another user signs in in this browser (no sign-out here clears
        // its cache).
        await (await first.post("/signout", { _csrf: csrfA })).body?.cancel();
        await page.setCookie({ name: "cw_session", value: second.cookies.get("cw_session")!, url: t.origin });
        await page.goBack({ waitUntil: "load" });
        const token = () =>
          page.evaluate(() =>
            document.querySelector<HTMLInputElement>("form[action='/signout'] input[name=_csrf]")?.value
          ).catch(() => undefined);
        const seen = await token();
        // Shown, it must be the second user's page (fetched again), not the first one's from the cache.
        const shown = await page.evaluate(() => document.documentElement.dataset.away === undefined).catch(() => false);
        if (shown) assert.notEqual(seen, csrfA, "the first user's page is shown");
        await page.waitForFunction(
          (b: string) =>
            document.querySelector<HTMLInputElement>("form[action='/signout'] input[name=_csrf]")?.value === b,
          { timeout: 15_000 },
          csrfB,
        );
        assert.equal(await page.evaluate(() => document.documentElement.dataset.away), undefined);
      }, { args: ["--disable-features=BackForwardCache"] });
    } finally {
      await t.close();
    }
  },
});
