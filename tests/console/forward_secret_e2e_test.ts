// The signing secret of a destination just added is shown once: taking it must give the whole secret. A base64
// secret holds "+", "/" and "=", where a double click (a long press on a phone) ends its word, so the user took a
// piece of it (`whsec_DPn0Cils2Af6SJNJbBKVJTMI`), and the app then refused every forwarded postback's signature.

import assert from "node:assert/strict";
import { browserTestOptions, withBrowser } from "../_chromium.ts";
import { connectSandbox, registerHook, signIn, startConsole } from "./_helpers.ts";
import { gotoHydrated, signedInPage } from "./_browser.ts";

Deno.test({
  name: "a destination's secret, shown once, is taken whole by a double click, or by its Copy button",
  ...browserTestOptions,
  fn: async () => {
    const t = await startConsole({ buildAssets: true });
    try {
      const client = await signIn(t.origin);
      await connectSandbox(client, t.origin);
      const hookId = await registerHook(client, t.origin);
      await withBrowser(async (browser) => {
        const context = browser.defaultBrowserContext();
        await context.overridePermissions(t.origin, ["clipboard-read", "clipboard-write", "clipboard-sanitized-write"]);
        const page = await signedInPage(browser, client, t.origin);
        await page.setViewport({ width: 1280, height: 800 });
        await page.bringToFront(); // the clipboard is written only by a focused page
        // Destinations until one's secret holds a character that ends a word (three in four do).
        let secret = "";
        for (let i = 0; i < 20 && !/[+/=]/.test(secret.slice(6, -1)); i++) {
          await gotoHydrated(page, `${t.origin}/webhooks/${hookId}/forward`);
          await page.type("#forward-add input[name=url]", `https://app${i}.example/in`);
          await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#forward-add button")]);
          await page.waitForFunction(
            () => [...document.querySelectorAll<HTMLElement>("[data-island]")].every((el) => el.dataset.hydrated),
          );
          secret = await page.$eval("#forward-secret", (el) => el.textContent ?? "");
        }
        assert.match(secret, /^whsec_/);
        await page.click("#forward-secret", { count: 2 });
        assert.equal(await page.evaluate(() => getSelection()?.toString()), secret);
        await page.evaluate(() => getSelection()?.removeAllRanges());
        await page.click("#forward-added button");
        await page.waitForFunction(() => document.querySelector("#forward-added")?.textContent?.includes("Copied."));
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
      });
    } finally {
      await t.close();
    }
  },
});
