// Forward to's page in Chromium, for the tests of its forms: a console with
// its assets built, signed in, connected to the sandbox with one hook
// registered, and a signed-in page at the hook's Forward to.

import type { Page } from "../_chromium.ts";
import { withHookPage } from "./_browser.ts";

/** Runs `fn` with a page at a fresh hook's Forward to; the console is closed after it. */
export function withForwardPage(
  fn: (page: Page, at: { origin: string; hookId: string }) => Promise<void>,
): Promise<void> {
  return withHookPage({}, async (page, { t, hookId }) => {
    await page.goto(`${t.origin}/webhooks/${hookId}/forward`);
    await fn(page, { origin: t.origin, hookId });
  });
}
