/**
 * The webhooks list in Chromium keeps each hook's health current with one
 * request for all the cells a look concerns: three hooks, a delivery to each,
 * and the page asks `/webhooks/health.json` for all three at once rather than
 * once per hook (each look of a page of 50 hooks cost 50 requests).
 */

import assert from "node:assert/strict";
import { browserTestOptions, withBrowser } from "../_chromium.ts";
import { connectSandbox, registerHook, signIn, startConsole, trigger } from "./_helpers.ts";
import { gotoHydrated, signedInPage } from "./_browser.ts";

Deno.test({
  name: "the webhooks list reads the health of its hooks in one request per look, and shows each delivery",
  ...browserTestOptions,
  fn: async () => {
    const c = await startConsole({ buildAssets: true });
    try {
      const client = await signIn(c.origin);
      await connectSandbox(client, c.origin);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push(await registerHook(client, c.origin));
      await withBrowser(async (browser) => {
        const page = await signedInPage(browser, client, c.origin);
        const reads: string[] = [];
        page.on("request", (r) => {
          if (/health\.json/.test(r.url())) reads.push(r.url());
        });
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
        assert.ok(reads.length > 0, "the cells read their health");
        assert.ok(reads.length <= 3, `${reads.length} requests for 3 hooks: ${reads.join(" ")}`);
        for (const url of reads) assert.match(url, /\/webhooks\/health\.json\?id=/);
        assert.ok(
          reads.some((url) => ids.every((id) => url.includes(`id=${id}`))),
          `one request names all three: ${reads.join(" ")}`,
        );
      });
    } finally {
      await c.close();
    }
  },
});
