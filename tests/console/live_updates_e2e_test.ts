/**
 * The live view in Chromium on a hook's page: the hook's summary and its
 * times keep up with deliveries as they arrive (issue 24, defect 9), a page
 * without Web Locks polls instead, and the page keeps only its latest 10.
 */

import assert from "node:assert/strict";
import { browserTestOptions } from "../_chromium.ts";
import { trigger } from "./_helpers.ts";
import { onHookPage } from "./_hook_browser.ts";

Deno.test({
  name: "the hook's summary and its last time keep up with deliveries as they arrive",
  ...browserTestOptions,
  fn: () =>
    onHookPage(async (page, t, hookId) => {
      await page.waitForSelector("#live-status.live", { timeout: 30_000 });
      assert.match(await page.$eval("#delivery-summary", (el) => el.textContent ?? ""), /^Last 24 hours: 0 accepted/);
      for (let n = 1; n <= 2; n++) {
        assert.deepEqual(await trigger(t.origin), [200]);
        const [newest] = await t.app.deliveries.list({ hookId, limit: 1 });
        await page.waitForFunction(
          (count: number, iso: string) => {
            const summary = document.querySelector("#delivery-summary");
            const time = summary?.querySelector("time");
            return summary?.textContent?.startsWith(`Last 24 hours: ${count} accepted, 0 rejected.`) &&
              time?.dateTime === iso && time.textContent !== iso && /\(.+\)/.test(time.textContent ?? "");
          },
          { timeout: 30_000 },
          n,
          newest.receivedAt,
        );
        await page.waitForFunction(
          (count: number) =>
            new RegExp(`Success rate: 100% accepted\\. .*\\(of ${count} postbacks?\\)`).test(
              document.querySelector("#delivery-health")?.textContent ?? "",
            ),
          { timeout: 30_000 },
          n,
        );
      }
    }),
});

Deno.test({
  name: "without Web Locks (a page not from a secure origin) a live page polls, and still shows new deliveries",
  ...browserTestOptions,
  fn: () =>
    onHookPage(async (page, t, hookId) => {
      await page.waitForFunction(
        () => document.querySelector("#live-status")?.textContent === "checking every few seconds",
        { timeout: 30_000 },
      );
      assert.deepEqual(await trigger(t.origin), [200]);
      const [newest] = await t.app.deliveries.list({ hookId, limit: 1 });
      await page.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 30_000 });
    }, async (page) => {
      await page.evaluateOnNewDocument(() => {
        Object.defineProperty(Navigator.prototype, "locks", { get: () => undefined });
      });
    }),
});

Deno.test({
  name: "a webhook's page keeps its latest 10 deliveries as more arrive live, not every one",
  ...browserTestOptions,
  fn: () =>
    onHookPage(async (page, t, hookId) => {
      await page.waitForFunction(() => document.querySelector("#live-status")?.textContent === "live", {
        timeout: 30_000,
      });
      const item = (n: number) => ({
        webhook: "https://x.example/1",
        activity: { verb: "jive:created", title: `#${n}` },
      });
      for (let n = 0; n < 14; n++) await t.app.deliveries.add(hookId, [item(n)]);
      const [newest] = await t.app.deliveries.list({ hookId, limit: 1 });
      await page.waitForSelector(`[id="delivery-${newest.id}"]`, { timeout: 30_000 });
      const rows = await page.evaluate(() => document.querySelectorAll("tr.delivery").length);
      assert.equal(rows, 10);
    }),
});
