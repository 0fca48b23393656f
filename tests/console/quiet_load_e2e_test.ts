// A page as a screen reader user meets it on load: its live regions say nothing unasked while it loads and its script
// starts (a notice is read as the focused element instead). A live region that changes then is read out on every
// load: the delivery page's Copy button shown in its region ("Copy the raw body"), the live view's "Updates:
// connecting", then "Updates: live". They are to speak when something happens: a copy, the live view falling back or stopping.

import assert from "node:assert/strict";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { gotoHydrated, withHookPage } from "./_browser.ts";
import { trigger } from "./_helpers.ts";

/**
 * From each new document on, records what its live regions say once the document is parsed (the script's changes,
 * not the parser's): each new text a region takes, read back with {@linkcode heard}.
 */
async function listenFromLoad(page: Page): Promise<void> {
  await page.evaluateOnNewDocument(() => {
    const heard: string[] = [];
    (globalThis as unknown as { heard: string[] }).heard = heard;
    const LIVE = "[aria-live]:not([aria-live=off]), [role=status], [role=log], [role=alert]";
    let parsed = false;
    const said = new WeakMap<Element, string>(); // each region's text as parsed, then as last changed
    const saying = (region: Element) => {
      const shown = region.cloneNode(true) as Element; // what it says: its text less what is hidden
      shown.querySelectorAll("[hidden]").forEach((el) => el.remove());
      return shown.textContent!.replace(/\s+/g, " ").trim();
    };
    const observer = new MutationObserver((records) => {
      if (!parsed) return;
      const regions = new Set<Element>();
      for (const r of records) {
        const el = r.target instanceof Element ? r.target : r.target.parentElement;
        const region = el?.closest(LIVE);
        if (region) regions.add(region);
      }
      for (const region of regions) {
        const text = saying(region);
        if (text === (said.get(region) ?? "")) continue; // touched, not changed
        said.set(region, text);
        heard.push(`${region.id || region.className}: ${text}`);
      }
    });
    observer.observe(document, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
      attributeFilter: ["hidden"],
    });
    document.addEventListener("readystatechange", () => {
      if (document.readyState !== "interactive") return;
      observer.takeRecords(); // the parser's
      for (const region of document.querySelectorAll(LIVE)) said.set(region, saying(region));
      parsed = true;
    });
  });
}

/** What the live regions said since the page loaded (or the last call). */
async function heard(page: Page): Promise<string[]> {
  return await page.evaluate(() => (globalThis as unknown as { heard: string[] }).heard.splice(0));
}

Deno.test({
  name: "a page's live regions say nothing as it loads: not the Copy button, not 'Updates: connecting', 'live'",
  ...browserTestOptions,
  fn: () =>
    withHookPage({}, async (page, { t, hookId }) => {
      await listenFromLoad(page);
      assert.deepEqual(await trigger(t.origin), [200]);
      const [delivery] = await t.app.deliveries.list({ hookId, limit: 1 });

      await gotoHydrated(page, `${t.origin}/deliveries/${encodeURIComponent(delivery.id)}`);
      await page.waitForSelector(".copy button:not([hidden])");
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(await heard(page), []);
      for (const path of ["/deliveries", `/webhooks/${hookId}`]) {
        await gotoHydrated(page, `${t.origin}${path}`);
        await page.waitForSelector("#live-status.live", { timeout: 30_000 });
        await new Promise((r) => setTimeout(r, 500));
        assert.deepEqual(await heard(page), [], path);
      }
    }),
});
