// A refused form in Chromium, as a keyboard or screen reader user meets it: the page that comes back says what is
// wrong, and focus is on that message (announced, and the next Tab goes on into the form), not left at the top of
// the page before the skip link and the navigation.

import assert from "node:assert/strict";
import { browserTestOptions, type Page } from "../_chromium.ts";
import { gotoHydrated, settled, withHookPage } from "./_browser.ts";

/** Submits `form` as it is (no browser checks of its fields) and waits for the answer to load. */
async function submitAsIs(page: Page, form: string): Promise<void> {
  await page.$eval(form, (f) => ((f as HTMLFormElement).noValidate = true));
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(`${form} button[type=submit]`)]);
}

/** What has focus once the page has settled: the error message's text, or the focused element's tag. */
async function focused(page: Page): Promise<string> {
  await settled(page);
  return await page.evaluate(() => {
    const el = document.activeElement;
    return el?.matches("[role=alert]") ? `alert: ${el.textContent}` : el?.tagName.toLowerCase() ?? "none";
  });
}

Deno.test({
  name: "a refused form moves focus to its error message: register, add a community, forward to",
  ...browserTestOptions,
  fn: () =>
    withHookPage({}, async (page, { t, hookId }) => {
      await page.setViewport({ width: 1280, height: 800 });

      await gotoHydrated(page, `${t.origin}/webhooks/new`);
      await submitAsIs(page, "form#register");
      assert.equal(await focused(page), "alert: Choose at least one event");

      await gotoHydrated(page, `${t.origin}/communities/new`);
      await page.type("input[name=name]", "x".repeat(201));
      await page.type("input[name=tenantId]", "t");
      await page.type("input[name=baseUrl]", "https://community.example");
      await submitAsIs(page, "main form.stack");
      assert.equal(await focused(page), "alert: Name is too long (at most 200 characters)");

      await gotoHydrated(page, `${t.origin}/webhooks/${hookId}/forward`);
      await page.type("#forward-add input[name=url]", "ftp://app.example/x");
      await submitAsIs(page, "#forward-add");
      assert.match(await focused(page), /^alert: No destination was added: /);
      // The next Tab goes on from the message, into the page below it, not back to the skip link.
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate(() => document.activeElement?.closest("main") !== null), true);
    }),
});
