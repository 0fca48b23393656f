/**
 * The webhooks list in Chromium keeps each hook's health current with one
 * request for all the cells a look concerns: three hooks, a delivery to each,
 * and the page asks `/webhooks/health.json` for all three at once rather than
 * once per hook (each look of a page of 50 hooks cost 50 requests), and at
 * most every 2 s.
 */

import assert from "node:assert/strict";
import { browserTestOptions } from "../_chromium.ts";
import { registerHook, trigger } from "./_helpers.ts";
import { gotoHydrated, withHookPage } from "./_browser.ts";

Deno.test({
  name: "the webhooks list reads the health of its hooks in one request per look, and shows each delivery",
  ...browserTestOptions,
  fn: () =>
    withHookPage({}, async (page, { t: c, client, hookId }) => {
      const ids = [hookId];
      for (let i = 1; i < 3; i++) ids.push(await registerHook(client, c.origin));
      await gotoHydrated(page, `${c.origin}/webhooks`);
      await page.waitForFunction(() => document.documentElement.dataset.liveRole === "leader", { timeout: 30_000 });
      for (const id of ids) {
        const platformId = String((await c.app.webhooks.findByID(id))!.entity.id);
        assert.deepEqual(await trigger(c.origin, { webhookId: platformId }), [200]);
      }
      for (const id of ids) {
        await page.waitForFunction(
          (s) => /of 1 in 24 h/.test(document.querySelector(s)?.textContent ?? ""),
          { timeout: 15_000 },
          `tr[data-webhook="${id}"] td[data-label=Health]`,
        );
      }
      // When each read started, by the page's clock: how many there are depends on how fast the deliveries come
      // (one that comes 2 s after another is read on its own), but one look never costs a read per hook, so two
      // reads are never less than the reader's 2 s apart.
      const timed = await page.evaluate(() =>
        performance.getEntriesByType("resource").filter((e) => /health\.json/.test(e.name)).map((e) => ({
          url: e.name,
          at: e.startTime,
        }))
      );
      const reads = timed.map((r) => r.url);
      assert.ok(reads.length > 0, "the cells read their health");
      const gaps = timed.slice(1).map((r, i) => Math.round(r.at - timed[i].at));
      assert.ok(gaps.every((ms) => ms >= 1_500), `${reads.length} requests for 3 hooks, ${gaps} ms apart: ${reads}`);
      for (const url of reads) assert.match(url, /\/webhooks\/health\.json\?id=/);
      assert.ok(
        reads.some((url) => ids.every((id) => url.includes(`id=${id}`))),
        `one request names all three: ${reads.join(" ")}`,
      );
    }),
});
