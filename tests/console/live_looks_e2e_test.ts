/**
 * The live deliveries table's looks (`/deliveries.json`, one at a time):
 * when more deliveries arrive at once than one look reads (a postback of
 * many items, a page back from the back/forward cache), it shows the newest
 * without a hole, never the newest ones followed by older ones as if nothing
 * came between; and a look that never ends does not stop the table for good.
 */

import assert from "node:assert/strict";
import { browserTestOptions } from "../_chromium.ts";
import type { Page } from "../_chromium.ts";
import { gotoHydrated, withHookPage } from "./_browser.ts";

const item = (n: number) => ({ webhook: "https://x.example/1", activity: { verb: "jive:created", title: `#${n}` } });

const isLook = (request: { url(): string }) => request.url().includes("/deliveries.json");

/** Opens the log's page, live, once the page's own looks (as it subscribed, as its stream got ready) are answered. */
async function liveAndQuiet(page: Page, origin: string): Promise<void> {
  let looking = 0;
  page.on("request", (request) => void (isLook(request) && looking++));
  for (const event of ["requestfinished", "requestfailed"] as const) {
    page.on(event, (request) => void (isLook(request) && looking--));
  }
  await gotoHydrated(page, `${origin}/deliveries`);
  await page.waitForSelector("#live-status.live", { timeout: 30_000 });
  for (let quiet = 0; quiet < 5; quiet = looking === 0 ? quiet + 1 : 0) {
    await new Promise((r) => setTimeout(r, 100));
  }
}

Deno.test({
  name: "the live table shows the newest deliveries without a hole after more arrive at once than one look reads",
  ...browserTestOptions,
  fn: () =>
    withHookPage({ connect: false }, async (page, { t, hookId }) => {
      await t.app.deliveries.add(hookId, [item(0), item(1), item(2)]);
      await liveAndQuiet(page, t.origin);
      assert.equal(await page.evaluate(() => document.querySelectorAll("tr.delivery").length), 3);
      // The page's looks wait until 150 deliveries are stored: more than the 100 one look reads.
      await page.setRequestInterception(true);
      const held: (() => Promise<void>)[] = [];
      let holding = true;
      page.on("request", (request) => {
        if (holding && isLook(request)) held.push(() => request.continue());
        else void request.continue();
      });
      await t.app.deliveries.add(hookId, Array.from({ length: 75 }, (_, n) => item(3 + n)));
      await t.app.deliveries.add(hookId, Array.from({ length: 75 }, (_, n) => item(78 + n)));
      for (let waited = 0; held.length === 0; waited += 50) {
        assert.ok(waited < 30_000, "the page looks for the new deliveries");
        await new Promise((r) => setTimeout(r, 50));
      }
      holding = false;
      for (const release of held.splice(0)) await release();
      const [newest] = await t.app.deliveries.list({ hookId, limit: 1 });
      await page.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 30_000 });
      await new Promise((r) => setTimeout(r, 1_000)); // the looks the burst set off are answered
      const shown = await page.evaluate(() =>
        [...document.querySelectorAll("tr.delivery")].map((row) => row.id.slice("delivery-".length))
      );
      const log = await t.app.deliveries.list({ hookId, limit: shown.length });
      assert.deepEqual(shown, log.map((d) => d.id), "the rows are the log's newest, in order, none left out");
    }),
});

Deno.test({
  name: "a look of the live table that never ends (a connection gone half-open) does not stop the table for good",
  ...browserTestOptions,
  fn: () =>
    withHookPage({ connect: false }, async (page, { t, hookId }) => {
      await liveAndQuiet(page, t.origin);
      // The next look is never answered; the ones after it are.
      await page.setRequestInterception(true);
      let stalled = false;
      page.on("request", (request) => {
        if (!stalled && isLook(request)) stalled = true;
        else void request.continue();
      });
      const [delivery] = await t.app.deliveries.add(hookId, [item(0)]);
      // Before: the table waited for that look for ever, and showed no delivery again while it said "live".
      await page.waitForSelector(`[id="delivery-${delivery.id}"]`, { timeout: 20_000 });
      assert.ok(stalled, "a look was stalled");
      assert.equal(await page.$eval("#live-status", (el) => el.textContent), "live");
    }),
});
