// The hook page's Name and description, refused, as a screen reader user meets it: the field that is wrong is marked
// invalid and described by the page's error message, so that landing on it says it is wrong and why, and it keeps the
// text typed. The other field is not marked.

import assert from "node:assert/strict";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { gotoHydrated, settled, withHookPage } from "./_browser.ts";

/** Each label field's value and marks, once the refused page has settled. */
async function fields(page: Page): Promise<Record<string, string>> {
  await settled(page);
  return await page.evaluate(() =>
    Object.fromEntries(["#label-name", "#label-description"].map((sel) => {
      const el = document.querySelector<HTMLInputElement>(sel)!;
      const describedBy = el.getAttribute("aria-describedby");
      const message = describedBy ? document.getElementById(describedBy)?.textContent : undefined;
      return [sel, `${el.getAttribute("aria-invalid") ?? "-"} | ${message ?? "-"} | ${el.value.length}`];
    }))
  );
}

/** Types `name` and `description` past the fields' maxlength (as an old page or a paste may) and saves. */
async function save(page: Page, name: string, description: string): Promise<void> {
  await page.$eval("#label-name", (el, v) => ((el as HTMLInputElement).value = v), name);
  await page.$eval("#label-description", (el, v) => ((el as HTMLTextAreaElement).value = v), description);
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#label button[type=submit]")]);
}

Deno.test({
  name: "a refused name or description is marked invalid, described by the error, and keeps the text typed",
  ...browserTestOptions,
  fn: () =>
    withHookPage({}, async (page, { t, hookId }) => {
      await gotoHydrated(page, `${t.origin}/webhooks/${hookId}`);
      await save(page, "n".repeat(90), "fine");
      assert.deepEqual(await fields(page), {
        "#label-name": "true | The name is 90 characters; at most 80. Nothing was saved. | 90",
        "#label-description": "- | - | 4",
      });

      await save(page, "fine", "d".repeat(600));
      assert.deepEqual(await fields(page), {
        "#label-name": "- | - | 4",
        "#label-description": "true | The description is 600 characters; at most 500. Nothing was saved. | 600",
      });
    }),
});
