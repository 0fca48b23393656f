// Paging by keyboard: the deliveries' Older, Newer and Newest, and on Forward to the destinations' Older and Newer and
// the dead letters' Older, each load a new page, and the next Tab there goes on into the rows listed, not back to the
// top of the page through the menu and the forms again.

import assert from "node:assert/strict";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { createRelay } from "../../webhooks/mod.ts";
import { gotoHydrated, settled, withHookPage } from "./_browser.ts";
import { deadLetter, storeDead } from "./_dead_letters.ts";

/** Follows the pager link `id` by keyboard (focus, Enter), then presses Tab once: where focus is, by its landmark. */
async function followThenTab(page: Page, id: string, rows = "#deliveries-table"): Promise<string> {
  await page.focus(`#${id}`);
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.keyboard.press("Enter")]);
  await settled(page);
  await page.keyboard.press("Tab");
  return await page.evaluate((rows) => {
    const el = document.activeElement;
    if (el?.closest(rows)) return "a row";
    return `${el?.tagName.toLowerCase()} ${el?.id || el?.textContent?.trim().slice(0, 30)}`;
  }, rows);
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
      assert.equal(await followThenTab(page, "older"), "a row", "after Older");
      assert.equal(await followThenTab(page, "older"), "a row", "after Older again");
      assert.equal(await followThenTab(page, "newer"), "a row", "after Newer");
      assert.equal(await followThenTab(page, "first-page"), "a row", "after Newest");
      // The address the page is at still names the page (its fragment aside): a reload or a bookmark keeps it.
      assert.equal(new URL(page.url()).pathname, "/deliveries");
    });
  },
});

Deno.test({
  name: "Forward to by keyboard: the destinations' Older and Newer and the dead letters' Older reach their rows",
  ...browserTestOptions,
  fn: async () => {
    await withHookPage({ allowPrivateNetwork: true }, async (page, { t, hookId }) => {
      const relay = createRelay(t.kv, { allowPrivateNetwork: true });
      try {
        let first = "";
        for (let i = 0; i < 60; i++) {
          const { id } = await relay.destinations.add({ url: `http://127.0.0.1:9/d${i}`, hookIds: [hookId] });
          first ||= id;
        }
        for (let i = 0; i < 105; i++) await storeDead(t.kv, deadLetter(i, first, hookId));
      } finally {
        await relay.close();
      }
      await gotoHydrated(page, `${t.origin}/webhooks/${hookId}/forward`);
      assert.equal(await followThenTab(page, "forward-newer", "#forward-destinations"), "a row", "after Newer");
      assert.equal(await followThenTab(page, "forward-older", "#forward-destinations"), "a row", "after Older");
      assert.equal(await followThenTab(page, "forward-dead-older", "#forward-dead"), "a row", "after Older dead");
    });
  },
});
