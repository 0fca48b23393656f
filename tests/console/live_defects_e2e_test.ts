/**
 * Live pages of issue 44 in Chromium: the summary's "Last: …" reads against
 * the present, not the page's load ("in 13 seconds", defect 1); a live page
 * says so when its session ended in another tab, instead of "checking every
 * few seconds" for ever (5); and the webhooks list shows each hook's state
 * and keeps its health current as deliveries arrive (12).
 */

import assert from "node:assert/strict";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { csrfOf, parse, registerHook, trigger, withSignedInHook } from "./_helpers.ts";
import { gotoHydrated, withHookPage } from "./_browser.ts";

const SHOTS = "/tmp/shots-defects";

async function open(page: Page, url: string): Promise<void> {
  await gotoHydrated(page, url);
  // Listening: the status line says so (the webhooks list has none: its tab leads, or follows, the stream).
  await page.waitForFunction(
    () =>
      (document.querySelector("#live-status")?.textContent ?? "live") === "live" &&
      document.documentElement.dataset.liveRole === "leader",
    { timeout: 30_000 },
  );
}

Deno.test({
  name: "issue 44 live pages: times against the present, a session ended elsewhere, the list's health",
  ...browserTestOptions,
  fn: (t) =>
    withHookPage({}, async (page, { t: c, client, hookId: id, platformId: readPlatformId }) => {
      const platformId = await readPlatformId();
      await Deno.mkdir(SHOTS, { recursive: true });
      await page.setViewport({ width: 1280, height: 900 });

      await t.step("the list shows each hook's state, and its health as deliveries arrive (12)", async () => {
        await open(page, `${c.origin}/webhooks`);
        const state = await page.$eval(`tr[data-webhook="${id}"] td[data-label=State]`, (el) => el.textContent);
        assert.equal(state, "enabled");
        const cell = `tr[data-webhook="${id}"] td[data-label=Health]`;
        assert.match(await page.$eval(cell, (el) => el.textContent ?? ""), /no deliveries yet/);
        assert.deepEqual(await trigger(c.origin, { webhookId: platformId }), [200]);
        await page.waitForFunction(
          (s) => /0% rejected of 1 in 24 h/.test(document.querySelector(s)?.textContent ?? ""),
          {
            timeout: 15_000,
          },
          cell,
        );
        await page.screenshot({ path: `${SHOTS}/live_webhooks_1280.png`, fullPage: true });
      });

      for (const path of [`/webhooks/${id}`, "/deliveries"]) {
        await t.step(`${path}: a delivery that arrives later reads as a moment ago, not ahead (1)`, async () => {
          await open(page, `${c.origin}${path}`);
          // The page is a second old when the delivery comes: a time read against the page's own "now" would say
          // "(in 1 second)" or more (seconds are rounded), as it said "(in 3 seconds)" after 3 s; waiting longer
          // only makes the number larger.
          await new Promise((r) => setTimeout(r, 1_000));
          assert.deepEqual(await trigger(c.origin, { webhookId: platformId }), [200]);
          const [newest] = await c.app.deliveries.list({ hookId: id, limit: 1 });
          // Waits for this delivery in both places read: the summary also changes when a count of the page's own
          // (as it subscribed, as its stream got ready) re-renders an older "Last:" time, and the row and the
          // summary are read by two requests, the summary's at most every 2 s, so either may come first.
          await page.waitForFunction(
            (iso: string, row: string) =>
              document.querySelector("#delivery-summary time")?.getAttribute("datetime") === iso &&
              document.querySelector(`[id="${row}"].fresh time`)?.getAttribute("datetime") === iso,
            { timeout: 15_000 },
            newest.receivedAt,
            `delivery-${newest.id}`,
          );
          const summary = await page.$eval("#delivery-summary", (el) => el.textContent ?? "");
          const row = await page.$eval("#deliveries-table tr.delivery time", (el) => el.textContent ?? "");
          for (const text of [summary, row]) {
            assert.doesNotMatch(text, /\(in \d+ seconds?\)/, text);
            assert.match(text, /\((now|\d+ seconds? ago)\)/, text);
          }
        });
      }

      await t.step(
        "a sign-out in another tab: the live page says the session ended, with a way back (5)",
        async () => {
          await open(page, `${c.origin}/deliveries`);
          await (await client.post("/signout", { _csrf: csrfOf(await client.text("/", 200)) })).body?.cancel();
          await page.waitForFunction(
            () => /session ended/.test(document.querySelector(".live-status")?.textContent ?? ""),
            { timeout: 30_000 },
          );
          const status = await page.$eval(".live-status", (el) => el.textContent ?? "");
          assert.match(status, /^Updates: stopped: your session ended\. Sign in again to see new deliveries\.$/);
          const href = await page.$eval("#live-signin", (el) => el.getAttribute("href"));
          assert.equal(href, "/signin?returnTo=%2Fdeliveries");
          await page.screenshot({ path: `${SHOTS}/live_session_ended_1280.png`, fullPage: true });
        },
      );
    }),
});

Deno.test("the webhooks list has a State column: enabled or disabled", async () => {
  await withSignedInHook({}, async ({ t: c, client, hookId: on }) => {
    const off = await registerHook(client, c.origin);
    const csrf = csrfOf(await client.text(`/webhooks/${off}`, 200));
    await (await client.post(`/webhooks/${off}/enabled`, { _csrf: csrf, enabled: "0" })).body?.cancel();
    const page = parse(await client.text("/webhooks", 200));
    try {
      const state = (hook: string) =>
        page.document.querySelector(`tr[data-webhook="${hook}"] td[data-label=State]`)?.textContent;
      assert.equal(state(on), "enabled");
      assert.equal(state(off), "disabled");
      assert.ok([...page.document.querySelectorAll("#webhooks th")].some((th) => th.textContent === "State"));
    } finally {
      page.close();
    }
  });
});
