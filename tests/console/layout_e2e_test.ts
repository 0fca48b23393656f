/**
 * Every page of the console and of its sandbox in Chromium at 1,280 and
 * 390 px (issue 24, defects 10 and 16): no page scrolls sideways, no word
 * is broken inside (a table at 1,280 px squeezed "Sandbox" into
 * "Sandb/ox", and at 390 px "accepte/d"), tables at 390 px show each row
 * as a card of labelled values, and axe-core finds nothing (WCAG 2 A and AA
 * and its best practices: landmarks, regions, empty headers). Screenshots
 * go to a temporary folder (printed).
 */

import assert from "node:assert/strict";
import { browserTestOptions, type Page, withBrowser } from "../_chromium.ts";
import { connectSandbox, csrfOf, registerHook, signIn, startConsole } from "./_helpers.ts";
import { axeViolations, signedInPage } from "./_browser.ts";
import { FORGED_AUTHORIZATION } from "./_forged.ts";

/** What a refused private callback's reason ends with. */
const ALLOW = "Set ALLOW_PRIVATE_NETWORK=1 to allow internal hosts.";

/** What axe-core checks here: WCAG 2 A and AA, and the best practices. */
const AXE_RULES = ["wcag2a", "wcag2aa", "best-practice"];

/** Words (2 to 30 characters between spaces, hyphens and slashes; URLs aside) that the page breaks across lines. */
function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    const root = document.querySelector("main") ?? document.body;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
      const el = node.parentElement;
      // Code, ids and URLs may break anywhere; hidden text is not seen.
      if (!el || el.closest("code, pre, .id, script, style, option, select, textarea, svg, .visually-hidden")) continue;
      if (el.closest("thead, tr.head") && innerWidth < 640) continue; // kept for screen readers only, clipped
      if (el.getClientRects().length === 0 || node.data.includes("://")) continue; // URLs may break anywhere
      for (const match of node.data.matchAll(/[^\s\-/–—]+/g)) {
        const length = [...match[0]].length;
        if (length < 2 || length > 30) continue; // a string longer than a phone is wide has to break
        const range = document.createRange();
        range.setStart(node, match.index!);
        range.setEnd(node, match.index! + match[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(`${match[0]} (in ${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""})`);
      }
    }
    return broken;
  });
}

Deno.test({
  name: "every page at 1,280 and 390 px: no sideways scroll, no word broken inside, cards on phones, axe-core clean",
  ...browserTestOptions,
  fn: async () => {
    const shots = await Deno.makeTempDir({ prefix: "console_layout_" });
    console.log(`Screenshots: ${shots}`);
    const t = await startConsole({ buildAssets: true });
    try {
      const client = await signIn(t.origin);
      await connectSandbox(client, t.origin);
      // A community whose name is long, one word of it longer than a phone is wide.
      await t.app.webhooks.communities.save({
        name: "The Practitioners' Community of Extraordinarily-Long-Named-Things Incorporated Worldwide",
        tenantId: "long-tenant",
        baseUrl: "https://a-community-with-a-rather-long-host-name.example.com",
      });
      // And one whose name is one unbroken word wider than a phone (it is in the page's buttons too), and at 122
      // characters wider than the communities table at 1,280 px: the table scrolls, the page does not.
      await t.app.webhooks.communities.save({
        name: "InternationalDevelopersCommunityPlatformOfExtraordinaryLength".repeat(2),
        tenantId: "one-word",
        baseUrl: "https://x.example",
      });
      const hookId = await registerHook(client, t.origin);
      const csrf = csrfOf(await client.text(`/webhooks/${hookId}`, 200));
      const labelled = await client.post(`/webhooks/${hookId}/label`, {
        _csrf: csrf,
        name: "Sandbox release notes",
        description: "Tells the release channel",
      });
      assert.equal(labelled.status, 303);
      await labelled.body?.cancel();
      const [accepted] = await t.app.deliveries.add(hookId, [
        { webhook: "w", activity: { verb: "jive:created", title: "Sandbox User created Release notes" } },
      ]);
      await t.app.deliveries.add(hookId, [{
        webhook: "w",
        activity: { verb: "jive:created", title: `a${"😀".repeat(20_000)}` },
      }]);
      const record = (await t.app.webhooks.findByID(hookId))!;
      const forged = await fetch(String(record.entity.callback), {
        method: "POST",
        headers: {
          authorization: FORGED_AUTHORIZATION,
        },
        body: "[]",
      });
      await forged.body?.cancel();
      const [rejected] = await t.app.deliveries.list({ limit: 1 });

      const pages = [
        "/",
        "/communities",
        "/communities/new",
        "/communities/sandbox-tenant",
        "/communities/long-tenant",
        "/communities/one-word",
        "/communities/sandbox-tenant/reconcile",
        "/webhooks",
        "/webhooks/new",
        `/webhooks/${hookId}`,
        `/webhooks/${hookId}/unregister`,
        "/deliveries",
        "/deliveries?status=rejected&verb=jive:nothing",
        `/deliveries/${accepted.id}`,
        `/deliveries/${rejected.id}`,
        "/webhooks/01HZZZZZZZZZZZZZZZZZZZZZZZ", // not found
        "/deliveries/no-such-delivery",
        "/sandbox",
        "/communities/sandbox-tenant/connect", // ends on the sandbox's consent page
      ];
      await withBrowser(async (browser) => {
        const page = await signedInPage(browser, client, t.origin, { axe: true });
        const problems: string[] = [];
        const visit = async (p: Page, path: string, i: number, prepare?: () => Promise<void>) => {
          for (const width of [1280, 390]) {
            await p.setViewport({ width, height: 900 });
            await prepare?.();
            await p.goto(`${t.origin}${path}`, { waitUntil: "load", timeout: 60_000 });
            // Islands hydrated and their times in local words: the page as a reader sees it.
            await p.waitForFunction(
              () =>
                [...document.querySelectorAll<HTMLElement>("[data-island]")].every((el) => el.dataset.hydrated) &&
                [...document.querySelectorAll("time")].every((el) => el.hasAttribute("data-local")),
              { timeout: 30_000 },
            );
            await p.screenshot({ path: `${shots}/${String(i).padStart(2, "0")}_${width}.png`, fullPage: true });
            const [scroll, inner] = await p.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
            if (scroll > inner) problems.push(`${path} at ${width} px: ${scroll} px wide for ${inner}`);
            for (const word of await brokenWords(p)) problems.push(`${path} at ${width} px: broken word ${word}`);
            if (width === 390 && (await p.$("main table tbody tr"))) {
              const card = await p.$eval("main table tbody tr", (tr) => getComputedStyle(tr).display);
              if (card !== "block") problems.push(`${path} at 390 px: table rows are not cards (${card})`);
            }
            problems.push(...(await axeViolations(p, AXE_RULES)).map((v) => `${path} at ${width} px: ${v}`));
          }
        };
        for (const [i, path] of pages.entries()) await visit(page, path, i);
        // The sandbox page after a Trigger whose postbacks failed: the notice lists each hook and why (its cookie, as
        // the trigger sets it, for each width: the page shows it once).
        const failures = [
          [String(record.entity.id), 0, `Refused to call 127.0.0.1:9: 127.0.0.1:9 is a loopback address. ${ALLOW}`],
          [String(record.entity.id), 500, ""],
        ];
        const value = encodeURIComponent(`2.2|${JSON.stringify(failures)}`);
        await visit(page, "/sandbox?triggered=2&failed=2", pages.length + 1, async () => {
          await page.setCookie({ name: "sandbox_triggered", value, url: t.origin });
        });
        // Signed out: the sign-in page.
        const context = await browser.createBrowserContext();
        const anonymous = await context.newPage();
        await anonymous.setBypassCSP(true);
        await visit(anonymous, "/signin", pages.length);
        await context.close();
        assert.deepEqual(problems, []);
      });
    } finally {
      await t.close();
    }
  },
});
