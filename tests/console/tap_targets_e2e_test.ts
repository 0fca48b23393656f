// Targets big enough to hit, in Chromium at 1,280 px and on a 390 px touch phone (WCAG 2.2's 2.5.8, "Target Size
// (Minimum)"): a control smaller than 24 by 24 px must leave room around it, so that a 24 px circle on its centre
// overlaps no other control (nor that one's circle). The register form's event boxes stood 20 px apart, the
// communities' Webhooks and Reconcile links 19 px apart in their cell, the community page's links flush under its
// Connect button, the event catalog's index links and a delivery's Raw toggle against their neighbours.

import assert from "node:assert/strict";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { gotoHydrated, withHookPage } from "./_browser.ts";

/** The controls too small for their spacing, each with the one it crowds. */
function crowded(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()} "${(el.textContent || (el as HTMLInputElement).value || "").trim().slice(0, 30)}"`;
    const controls = [
      ...document.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea, summary"),
    ]
      .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden")
      .map((el) => {
        const box = el.getBoundingClientRect();
        const small = box.width < 24 || box.height < 24;
        return { el, box, small, x: box.left + box.width / 2, y: box.top + box.height / 2 };
      });
    const toBox = (x: number, y: number, b: DOMRect) =>
      Math.hypot(Math.max(b.left - x, 0, x - b.right), Math.max(b.top - y, 0, y - b.bottom));
    const found: string[] = [];
    for (const a of controls.filter((c) => c.small)) {
      // A check box and its label are one target.
      const label = a.el.closest("label");
      const other = controls.find((b) =>
        b !== a && !(label && label.contains(b.el)) &&
        (toBox(a.x, a.y, b.box) < 12 || (b.small && Math.hypot(a.x - b.x, a.y - b.y) < 24))
      );
      if (other) {
        found.push(`${name(a.el)} ${Math.round(a.box.width)}x${Math.round(a.box.height)} crowds ${name(other.el)}`);
      }
    }
    return found;
  });
}

Deno.test({
  name: "at 1,280 px and on a 390 px phone, every control under 24 px has room around it",
  ...browserTestOptions,
  fn: () =>
    withHookPage({}, async (page, { t, hookId }) => {
      const [delivery] = await t.app.deliveries.add(hookId, [
        { webhook: "w", activity: { verb: "jive:created", title: "Release notes" } },
      ]);
      const pages = [
        "/communities",
        "/communities/sandbox-tenant",
        "/webhooks/new",
        `/webhooks/${hookId}`,
        "/events",
        `/deliveries/${delivery.id}`,
      ];
      const problems: string[] = [];
      for (const [width, height, touch] of [[1280, 800, false], [390, 844, true]] as const) {
        await page.setViewport({ width, height, isMobile: touch, hasTouch: touch });
        for (const path of pages) {
          await gotoHydrated(page, `${t.origin}${path}`);
          for (const problem of await crowded(page)) problems.push(`${path} at ${width} px: ${problem}`);
        }
      }
      assert.deepEqual(problems, []);
    }),
});

Deno.test({
  name: "on a 390 px phone, the sandbox page's controls (its trigger's event select included) are 24 px tall",
  ...browserTestOptions,
  fn: () =>
    withHookPage({}, async (page, { t }) => {
      await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
      await page.goto(`${t.origin}/sandbox`, { waitUntil: "load" });
      const short = await page.$$eval(
        "button, select, input:not([type=hidden])",
        (els) =>
          els.map((el) =>
            `${el.tagName.toLowerCase()}#${el.id || (el as HTMLInputElement).name} ${
              Math.round(el.getBoundingClientRect().height)
            } px`
          ).filter((s) => Number(s.split(" ").at(-2)) < 24),
      );
      assert.deepEqual(short, []);
    }),
});
