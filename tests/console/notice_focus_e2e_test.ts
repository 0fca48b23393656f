// A success notice after an action, as a keyboard or screen reader user meets it: the page the action leads to
// (its answer, or where it redirects) says what was done, and focus is on that notice, so that it is read out and the
// next Tab goes on into the page below it. A page loaded plainly, with no notice, takes no focus anywhere.

import assert from "node:assert/strict";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { clickAndWait, gotoHydrated, settled } from "./_browser.ts";
import { withForwardPage } from "./_forward_page.ts";

/** What has focus once the page has settled: the notice's text, or the focused element's tag. */
async function focused(page: Page): Promise<string> {
  await settled(page);
  return await page.evaluate(() => {
    const el = document.activeElement;
    return el?.matches("[role=status]") ? `status: ${el.textContent?.trim()}` : el?.tagName.toLowerCase() ?? "none";
  });
}

Deno.test({
  name: "a success notice after an action takes focus; a plain page load focuses nothing",
  ...browserTestOptions,
  fn: async () => {
    await withForwardPage(async (page, { origin, hookId }) => {
      await page.setViewport({ width: 390, height: 844 });
      await gotoHydrated(page, `${origin}/webhooks/${hookId}/forward`);
      assert.equal(await focused(page), "body");

      // The add's answer is the page itself (it shows the secret once).
      await page.type("#forward-add input[name=url]", "https://app.example/in");
      await clickAndWait(page, "#forward-add button[type=submit]");
      assert.equal(await focused(page), "status: The destination is added.");

      // Disable redirects (POST, 303, GET ?notice=disabled).
      await clickAndWait(page, "#forward-destinations button[type=submit]");
      assert.match(await focused(page), /^status: The destination is disabled/);
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate(() => document.activeElement?.closest("main") !== null), true);

      await gotoHydrated(page, `${origin}/webhooks`);
      assert.equal(await focused(page), "body");
    });
  },
});
