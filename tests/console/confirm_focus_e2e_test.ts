// A destructive action's confirmation (Unregister, Remove), by keyboard and screen reader: the page it leads to has
// focus on what will happen, so that it is read out and the next Tab is the confirming button, then Cancel; not left
// at the top of the page, before the skip link and the navigation. Cancel, by keyboard, leaves everything as it was.

import assert from "node:assert/strict";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { gotoHydrated, settled, withHookPage } from "./_browser.ts";

/** Presses Enter on `selector` and waits for the page it leads to, settled. */
async function enterOn(page: Page, selector: string): Promise<void> {
  await page.focus(selector);
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.keyboard.press("Enter")]);
  await settled(page);
}

/** The focused element: its id or tag, and whether it is in the confirmation form, with its text's start. */
async function focused(page: Page): Promise<string> {
  return await page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const where = el.closest("form#confirm") ? "in #confirm" : "outside";
    return `${el.id || el.tagName.toLowerCase()} ${where}: ${
      el.textContent?.replace(/\s+/g, " ").trim().slice(0, 120)
    }`;
  });
}

Deno.test({
  name: "a confirmation has focus on what will happen; Tab goes to its button, then Cancel, which keeps everything",
  ...browserTestOptions,
  fn: () =>
    withHookPage({}, async (page, { t, hookId }) => {
      await gotoHydrated(page, `${t.origin}/webhooks/${hookId}`);
      await enterOn(page, "form#unregister button[type=submit]");
      assert.match(await focused(page), /^\S+ in #confirm: The hook .* is deleted on the platform/);
      await page.keyboard.press("Tab");
      assert.equal(await focused(page), "confirm-button in #confirm: Unregister");
      await page.keyboard.press("Tab");
      assert.equal(await focused(page), "a in #confirm: Cancel");
      await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.keyboard.press("Enter")]);
      assert.ok(await t.app.webhooks.findByID(hookId), "Cancel unregistered nothing");

      await gotoHydrated(page, `${t.origin}/communities/sandbox-tenant`);
      await enterOn(page, "form#remove button[type=submit]");
      assert.match(await focused(page), /^\S+ in #confirm: The community's record and its tokens/);
      await page.keyboard.press("Tab");
      assert.equal(await focused(page), "confirm-button in #confirm: Remove Sandbox");
    }),
});
