/**
 * The console as a webhook portal, in Chromium (issue 16): "Send test event"
 * produces a delivery; a rejected postback shows in the log with its reason,
 * filtering and searching find it, and its page shows the masked header and
 * the verdict; axe-core finds no violation on any page; at 390 px no page
 * scrolls sideways. Screenshots of each page at 1,280 and 390 px go to a
 * temporary folder (printed).
 */

import assert from "node:assert/strict";
import { browserTestOptions } from "../_chromium.ts";
import { signJiveExtn } from "../../webhooks/mod.ts";
import { axeViolations, clickAndWait, withHookPage } from "./_browser.ts";
import { FORGED_AUTHORIZATION } from "./_forged.ts";

Deno.test({
  name: "the portal: test events, rejected postbacks with their reason, filters, axe-core and 390 px screens",
  ...browserTestOptions,
  fn: async () => {
    const shots = await Deno.makeTempDir({ prefix: "console_portal_" });
    console.log(`Screenshots: ${shots}`);
    await withHookPage({ axe: true }, async (page, { t, hookId }) => {
      const record = (await t.app.webhooks.findByID(hookId))!;
      await page.setViewport({ width: 1280, height: 900 });

      // "Send test event" on the hook's page produces a delivery.
      await page.goto(`${t.origin}/webhooks/${hookId}`);
      await clickAndWait(page, "#send-test button[type=submit]");
      assert.match(
        await page.$eval(".notice", (el) => el.textContent ?? ""),
        /The platform delivered the test event/,
      );
      assert.ok(!new URL(page.url()).search.includes("notice"), "the notice leaves the address once shown");
      assert.equal((await t.app.deliveries.page({ status: "accepted", hookId })).values.length, 1);
      assert.match(
        await page.$eval("#delivery-summary", (el) => el.textContent ?? ""),
        /^Last 24 hours: 1 accepted, 0 rejected\. Last: /,
      );

      // A forged postback is refused, and logged with its reason.
      const forged = await fetch(String(record.entity.callback), {
        method: "POST",
        headers: {
          authorization: FORGED_AUTHORIZATION,
          "content-type": "application/json",
        },
        body: "[]",
      });
      assert.equal(forged.status, 401);
      await forged.body?.cancel();

      await page.goto(`${t.origin}/deliveries`);
      await page.select("#filter-status", "rejected");
      await clickAndWait(page, "form.filters button[type=submit]");
      const rows = await page.$$eval("#deliveries-table tr.delivery .status", (els) => els.map((e) => e.textContent));
      assert.equal(rows.length, 1);
      assert.match(rows[0]!, /^401 JiveEXTN signature is not an HMAC-SHA256 signature$/);
      await page.goto(`${t.origin}/deliveries?q=hmac-sha256`);
      assert.equal((await page.$$("#deliveries-table tr.delivery")).length, 1, "the search finds it");
      await clickAndWait(page, "#deliveries-table tr.delivery .title a");
      const facts = await page.$eval("#delivery-facts", (el) => el.textContent ?? "");
      assert.match(facts, /not valid: JiveEXTN signature is not an HMAC-SHA256 signature/);
      const headers = await page.$eval("#delivery-headers", (el) => el.textContent ?? "");
      assert.match(headers, /JiveEXTN/);
      assert.doesNotMatch(headers, /c2lnbmF0dXJl/, "the signature is never shown");
      const detailPath = new URL(page.url()).pathname;

      // A header that parses but carries a wrong signature names its tenant: the community filter finds it.
      const wrong = await fetch(String(record.entity.callback), {
        method: "POST",
        headers: {
          authorization: await signJiveExtn(
            { clientId: "x", jiveUrl: `${t.origin}/sandbox`, tenantId: "sandbox-tenant", timestamp: Date.now() },
            btoa("not the community's secret"),
          ),
        },
        body: "[]",
      });
      await wrong.body?.cancel();
      await page.goto(`${t.origin}/deliveries?community=sandbox-tenant&status=rejected`);
      const inCommunity = await page.$$eval(
        "#deliveries-table tr.delivery .status",
        (els) => els.map((e) => e.textContent),
      );
      assert.equal(inCommunity.length, 1, "the community filter finds the one that named its tenant");
      assert.match(inCommunity[0]!, /^401 /);

      // Every page: axe-core clean, and no sideways scroll at 390 px.
      const pages = [
        "/",
        "/communities",
        "/communities/sandbox-tenant",
        "/communities/sandbox-tenant/reconcile",
        "/webhooks",
        "/webhooks/new",
        `/webhooks/${hookId}`,
        "/deliveries",
        "/deliveries?status=rejected",
        detailPath,
        "/sandbox",
        "/events",
      ];
      const problems: string[] = [];
      for (const [i, path] of pages.entries()) {
        for (const width of [1280, 390]) {
          await page.setViewport({ width, height: 900 });
          await page.goto(`${t.origin}${path}`);
          await page.screenshot({ path: `${shots}/${String(i).padStart(2, "0")}_${width}.png`, fullPage: true });
          const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
          if (scroll > inner) {
            const wide = await page.evaluate((limit) =>
              [...document.querySelectorAll("body *")]
                .filter((el) => el.getBoundingClientRect().right > limit + 1)
                .filter((el) => ![...el.children].some((c) => c.getBoundingClientRect().right > limit + 1))
                .slice(0, 3)
                .map((el) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}.${el.className}`), inner);
            problems.push(`${path} at ${width} px: ${scroll} px wide (${wide.join(", ")})`);
          }
          if (width === 1280) problems.push(...(await axeViolations(page)).map((v) => `${path}: ${v}`));
        }
      }
      assert.deepEqual(problems, []);
    });
  },
});
