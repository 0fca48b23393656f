// Sign-out in Chromium: Back afterwards leads to sign-in, never to the pages
// the browser kept of the session (its cache and the back/forward cache held
// them, data and all: on a shared computer, the next user's view), also when
// the session ended elsewhere and Back loads a page from the HTTP cache.

import assert from "node:assert/strict";
import { browserTestOptions, type LaunchOptions, type Page, withBrowser } from "../_chromium.ts";
import { type Client, connectSandbox, csrfOf, signIn, startConsole, type TestConsole } from "./_helpers.ts";

/** Without the back/forward cache, so that Back loads pages from the HTTP cache. */
const HTTP_CACHE_ONLY: LaunchOptions = { args: ["--disable-features=BackForwardCache"] };

/**
 * A console with the sandbox connected, and a browser signed in as `client` that has visited a community's page, then
 * the webhooks page (so Back leads to a page the browser kept).
 */
async function afterTwoPages(
  fn: (page: Page, client: Client, t: TestConsole) => Promise<void>,
  options: LaunchOptions = {},
): Promise<void> {
  const t = await startConsole({ buildAssets: true });
  try {
    const client = await signIn(t.origin);
    await connectSandbox(client, t.origin);
    await withBrowser(async (browser) => {
      const page = await browser.newPage();
      await page.setCookie({ name: "cw_session", value: client.cookies.get("cw_session")!, url: t.origin });
      await page.goto(`${t.origin}/communities/sandbox-tenant`, { waitUntil: "load" });
      await page.goto(`${t.origin}/webhooks`, { waitUntil: "load" });
      assert.match(await page.evaluate(() => document.body.innerText), /Sandbox User/);
      await fn(page, client, t);
    }, options);
  } finally {
    await t.close();
  }
}

/** The page's text now, or "" when a reload under way ends the look. */
const textNow = (page: Page) => page.evaluate(() => document.body.innerText).catch(() => "");

/**
 * On the sign-in page, read in full: the URL is the new one as soon as its document exists, when puppeteer first
 * tries the condition, and the page's text read then may be only what was parsed so far.
 */
const signInParsed = () => location.pathname === "/signin" && document.readyState !== "loading";

/** The token of the page's session (its sign-out form's), or undefined. */
const tokenOf = (page: Page) =>
  page.evaluate(() => document.querySelector<HTMLInputElement>("form[action='/signout'] input[name=_csrf]")?.value)
    .catch(() => undefined);

Deno.test({
  name: "after sign-out, Back shows none of the signed-in pages: the sign-out clears what the browser kept",
  ...browserTestOptions,
  fn: () =>
    afterTwoPages(async (page) => {
      await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("form[action='/signout'] button")]);
      assert.match(new URL(page.url()).pathname, /^\/signin$/);
      for (const step of ["first", "second"]) {
        await page.goBack({ waitUntil: "load" });
        // Restored from the back/forward cache, the page shows nothing (innerText leaves hidden text out) until
        // it knows the session ended, then reloads into sign-in.
        assert.doesNotMatch(await textNow(page), /Sandbox User|Tokens present/, `${step} Back, restored`);
        await page.waitForFunction(signInParsed, { timeout: 15_000 });
        const text = await page.evaluate(() => document.body.innerText);
        assert.doesNotMatch(text, /Sandbox User|Tokens present/, `${step} Back`);
        assert.match(text, /Sign in/);
      }
    }),
});

Deno.test({
  name: "a page Back loads from the HTTP cache after the session ended elsewhere shows nothing, and leads to sign-in",
  ...browserTestOptions,
  fn: () =>
    afterTwoPages(async (page, client) => {
      // The session ends on the server (expiry, or a sign-out in another browser): nothing reaches this one.
      await (await client.post("/signout", { _csrf: csrfOf(await client.text("/", 200)) })).body?.cancel();
      const fromCache: boolean[] = [];
      page.on("response", (r) => {
        if (r.request().isNavigationRequest()) fromCache.push(r.fromCache());
      });
      await page.goBack({ waitUntil: "load" });
      assert.doesNotMatch(await textNow(page), /Sandbox User|Tokens present/, "shown from the cache");
      await page.waitForFunction(signInParsed, { timeout: 15_000 });
      assert.doesNotMatch(await page.evaluate(() => document.body.innerText), /Sandbox User|Tokens present/);
      assert.equal(fromCache[0], true, "Back loaded the page from the HTTP cache, as this test means it to");
    }, HTTP_CACHE_ONLY),
});

Deno.test({
  name:
    "a page Back loads from the HTTP cache after another user signed in shows that user's page, never the last one's",
  ...browserTestOptions,
  fn: () =>
    afterTwoPages(async (page, first, t) => {
      const second = await signIn(t.origin);
      const csrfA = csrfOf(await first.text("/", 200));
      const csrfB = csrfOf(await second.text("/", 200));
      // The first session ends elsewhere, and another user signs in in this browser (no sign-out here clears its
      // cache).
      await (await first.post("/signout", { _csrf: csrfA })).body?.cancel();
      await page.setCookie({ name: "cw_session", value: second.cookies.get("cw_session")!, url: t.origin });
      await page.goBack({ waitUntil: "load" });
      const seen = await tokenOf(page);
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
    }, HTTP_CACHE_ONLY),
});
