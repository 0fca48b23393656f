// The deliveries page's filters, refused in part, as a keyboard or screen reader user meets them: the page that comes
// back has focus on its message, and each field it is about is marked invalid, described by that message, and keeps
// what was typed; the fields it is not about are not marked.

import assert from "node:assert/strict";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { gotoHydrated, settled, withHookPage } from "./_browser.ts";

/** The filter fields marked invalid and described by a message that names them, with their values' lengths. */
async function marked(page: Page): Promise<{ focused?: string; fields: string[] }> {
  await settled(page);
  return await page.evaluate(() => ({
    focused: document.activeElement?.id,
    fields: [...document.querySelectorAll<HTMLInputElement>("form.filters input, form.filters select")]
      .filter((el) => el.getAttribute("aria-invalid") === "true")
      .map((el) => {
        const described = document.getElementById(el.getAttribute("aria-describedby") ?? "")?.textContent ?? "";
        return `${el.name} (${el.value.length})${described ? "" : " undescribed"}`;
      }),
  }));
}

Deno.test({
  name: "a filter the deliveries page ignores marks its field, described by the message, its text kept",
  ...browserTestOptions,
  fn: () =>
    withHookPage({}, async (page, { t }) => {
      await gotoHydrated(page, `${t.origin}/deliveries`);
      // The verb and search fields take any length; the page reads at most 100 and 200 characters.
      await page.type("#filter-verb", "v".repeat(101));
      await page.type("#filter-q", "fine");
      await Promise.all([
        page.waitForNavigation({ waitUntil: "load" }),
        page.click("form.filters button[type=submit]"),
      ]);
      assert.deepEqual(await marked(page), { focused: "page-error", fields: ["verb (101)"] });

      // From after To: To is the one refused.
      await gotoHydrated(page, `${t.origin}/deliveries`);
      await page.$eval("#filter-from", (el) => ((el as HTMLInputElement).value = "2026-12-01T00:00"));
      await page.$eval("#filter-to", (el) => ((el as HTMLInputElement).value = "2026-11-01T00:00"));
      await Promise.all([
        page.waitForNavigation({ waitUntil: "load" }),
        page.click("form.filters button[type=submit]"),
      ]);
      assert.deepEqual(await marked(page), { focused: "page-error", fields: ["to (16)"] });
    }),
});
