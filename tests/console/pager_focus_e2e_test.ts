// Paging through the deliveries by keyboard: Older, Newer and Newest each load a new page, and the next Tab there goes
// on into the deliveries listed, not back to the top of the page through the menu and the filters again.

import assert from "node:assert/strict";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { gotoHydrated, settled, withHookPage } from "./_browser.ts";

/** Follows the pager link `id` by keyboard (focus, Enter), then presses Tab once: where focus is, by its landmark. */
async function followThenTab(page: Page, id: string): Promise<string> {
  await page.focus(`#${id}`);
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.keyboard.press("Enter")]);
  await settled(page);
  await page.keyboard.press("Tab");
  return await page.evaluate(() => {
    const el = document.activeElement;
    if (el?.closest("#deliveries-table")) return "a delivery";
    return `${el?.tagName.toLowerCase()} ${el?.id || el?.textContent?.trim().slice(0, 30)}`;
  });
}

Deno.test({
  name: "Older, Newer and Newest by keyboard: the next Tab on the new page reaches the deliveries listed",
  ...browserTestOptions,
  fn: async () => {
    await withHookPage({}, async (page, { t, hookId }) => {
      const item = (n: number) => ({ activity: { verb: "jive:created", object: { summary: `Item-${n}` } } });
      for (let p = 0; p < 3; p++) {
        await t.app.deliveries.add(hookId, Array.from({ length: 40 }, (_, i) => item(p * 40 + i)));
      }
      await gotoHydrated(page, `${t.origin}/deliveries`);
      assert.equal(await followThenTab(page, "older"), "a delivery", "after Older");
      assert.equal(await followThenTab(page, "older"), "a delivery", "after Older again");
      assert.equal(await followThenTab(page, "newer"), "a delivery", "after Newer");
      assert.equal(await followThenTab(page, "first-page"), "a delivery", "after Newest");
      // The address the page is at still names the page (its fragment aside): a reload or a bookmark keeps it.
      assert.equal(new URL(page.url()).pathname, "/deliveries");
    });
  },
});
