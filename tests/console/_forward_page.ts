// Forward to's page in Chromium, for the tests of its forms: a console with
// its assets built, signed in, connected to the sandbox with one hook
// registered, and a signed-in page at the hook's Forward to.

import type { Page } from "../_chromium.ts";
import { clickAndWait, gotoHydrated, withHookPage } from "./_browser.ts";

/** Runs `fn` with a page at a fresh hook's Forward to; the console is closed after it. */
export function withForwardPage(
  fn: (page: Page, at: { origin: string; hookId: string }) => Promise<void>,
): Promise<void> {
  return withHookPage({}, async (page, { t, hookId }) => {
    await page.goto(`${t.origin}/webhooks/${hookId}/forward`);
    await fn(page, { origin: t.origin, hookId });
  });
}

/** Counts the forms `page` sends as navigations (POST) from now on: read `count()` when needed. */
export function formPosts(page: Page): { count(): number } {
  let posts = 0;
  page.on("request", (request) => {
    if (request.method() === "POST" && request.isNavigationRequest()) posts++;
  });
  return { count: () => posts };
}

/** Opens the hook's Forward to (hydrated) and adds `url` through its Add form, waiting for the page it leads to. */
export async function addThroughForm(page: Page, at: { origin: string; hookId: string }, url: string): Promise<void> {
  await gotoHydrated(page, `${at.origin}/webhooks/${at.hookId}/forward`);
  await page.type("#forward-add input[name=url]", url);
  await clickAndWait(page, "#forward-add button[type=submit]");
}
