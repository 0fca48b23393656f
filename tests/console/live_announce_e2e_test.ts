// The deliveries page's live view, as a screen reader user meets it: what a live region says is read out unasked, so
// the page's live regions change when deliveries arrive, and then with one short message at a time ("3 new
// deliveries since this page opened"), not the whole table; and they do not change as the rows' "how long ago" keeps
// current every 30 s (the table itself a live region read out every row's time, every 30 s: an aria-live storm).

import assert from "node:assert/strict";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { gotoHydrated, withHookPage } from "./_browser.ts";
import { trigger } from "./_helpers.ts";

/** Records, in the page, each text a live region (aria-live, or a role that is one) takes: read with `heard()`. */
async function listen(page: Page): Promise<void> {
  await page.evaluate(() => {
    const heard: string[] = [];
    (globalThis as unknown as { heard: string[] }).heard = heard;
    const LIVE = "[aria-live]:not([aria-live=off]), [role=status], [role=log], [role=alert]";
    new MutationObserver((records) => {
      const regions = new Set<Element>();
      for (const r of records) {
        const el = r.target instanceof Element ? r.target : r.target.parentElement;
        const region = el?.closest(LIVE);
        if (region) regions.add(region);
      }
      for (const region of regions) {
        heard.push(`${region.id || region.className}: ${region.textContent?.replace(/\s+/g, " ").trim().slice(0, 80)}`);
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

/** What the live regions said since `listen` (or the last `heard`), but the live status ("Updates: live"). */
async function heard(page: Page): Promise<string[]> {
  return await page.evaluate(() => {
    const all = (globalThis as unknown as { heard: string[] }).heard;
    return all.splice(0).filter((text) => !text.startsWith("live-status"));
  });
}

Deno.test({
  name: "the live view says new deliveries in one short message at a time, and nothing as its times keep current",
  ...browserTestOptions,
  fn: () =>
    withHookPage({}, async (page, { t, client }) => {
      // The page's 30 s clock runs every 250 ms here, and `skew` moves its present forward.
      await page.evaluateOnNewDocument(() => {
        const w = globalThis as unknown as { skew: number };
        w.skew = 0;
        const now = Date.now.bind(Date);
        Date.now = () => now() + w.skew;
        const every = globalThis.setInterval;
        // deno-lint-ignore no-explicit-any
        (globalThis as any).setInterval = (fn: () => void, ms?: number) => every(fn, ms === 30_000 ? 250 : ms);
      });
      assert.deepEqual(await trigger(t.origin), [200]);
      await gotoHydrated(page, `${t.origin}/deliveries`);
      await page.waitForSelector("#live-status.live", { timeout: 30_000 });
      await listen(page);

      // Five minutes on: the row's time says so, and no live region changed for it.
      await page.evaluate(() => ((globalThis as unknown as { skew: number }).skew = 5 * 60_000));
      await page.waitForFunction(
        () => /5 minutes ago/.test(document.querySelector("#deliveries-table tr.delivery time")?.textContent ?? ""),
        { timeout: 10_000 },
      );
      await new Promise((r) => setTimeout(r, 1_000));
      assert.deepEqual(await heard(page), []);

      // One delivery: one message.
      assert.deepEqual(await trigger(t.origin), [200]);
      await page.waitForFunction(() => document.querySelectorAll("#deliveries-table tr.delivery").length === 2, {
        timeout: 30_000,
      });
      await new Promise((r) => setTimeout(r, 1_000));
      assert.deepEqual(await heard(page), ["live-news: 1 new delivery since this page opened"]);

      // A burst of three: said once more when it is over, not once for each.
      for (let i = 0; i < 3; i++) assert.deepEqual(await trigger(t.origin), [200]);
      await page.waitForFunction(
        () => document.getElementById("live-news")?.textContent === "4 new deliveries since this page opened",
        { timeout: 30_000 },
      );
      await new Promise((r) => setTimeout(r, 1_000));
      const burst = await heard(page);
      assert.ok(burst.length <= 2, burst.join("\n"));
      assert.equal(burst.at(-1), "live-news: 4 new deliveries since this page opened");

      // The region is in the page as sent, empty and polite: one added later is not read out when it changes.
      const sent = await client.text("/deliveries", 200);
      assert.match(sent, /<p\b(?=[^>]*\bid="live-news")(?=[^>]*\baria-live="polite")[^>]*><\/p>/);
    }),
});
