// The signing secret of a destination just added is shown once: taking it must give the whole secret. A base64
// secret holds "+", "/" and "=", where a double click (a long press on a phone) ends its word, so the user took a
// piece of it (`whsec_DPn0Cils2Af6SJNJbBKVJTMI`), and the app then refused every forwarded postback's signature.

import assert from "node:assert/strict";
import { browserTestOptions } from "../_chromium.ts";
import { gotoHydrated } from "./_browser.ts";
import { withForwardPage } from "./_forward_page.ts";

Deno.test({
  name: "a destination's secret, shown once, is taken whole by a double click, or by its Copy button",
  ...browserTestOptions,
  fn: async () => {
    await withForwardPage(async (page, { origin, hookId }) => {
      await page.browserContext().overridePermissions(origin, [
        "clipboard-read",
        "clipboard-write",
        "clipboard-sanitized-write",
      ]);
      await page.setViewport({ width: 1280, height: 800 });
      await page.bringToFront(); // the clipboard is written only by a focused page
      // Destinations until one's secret holds a character that ends a word (three in four do).
      let secret = "";
      for (let i = 0; i < 20 && !/[+/=]/.test(secret.slice(6, -1)); i++) {
        await gotoHydrated(page, `${origin}/webhooks/${hookId}/forward`);
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

      // A second Copy is said again: the live region gets a new node (a screen reader reads additions), where the
      // same "Copied." stayed and nothing was announced.
      await page.evaluate(() => {
        const said = document.querySelector("#forward-added [aria-live] > *");
        if (said) (said as HTMLElement).dataset.first = "yes";
      });
      await page.click("#forward-added button");
      await page.waitForFunction(
        () => {
          const said = document.querySelector<HTMLElement>("#forward-added [aria-live] > *");
          return said !== null && said.dataset.first === undefined && said.textContent?.trim() === "Copied.";
        },
        { timeout: 5_000 },
      );
    });
  },
});
