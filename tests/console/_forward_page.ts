// Forward to's page in Chromium, for the tests of its forms: a console with
// its assets built, signed in, connected to the sandbox with one hook
// registered, and a signed-in page at the hook's Forward to.

import type { Page } from "../_chromium.ts";
import { withBrowser } from "../_chromium.ts";
import { connectSandbox, registerHook, signIn, startConsole } from "./_helpers.ts";
import { signedInPage } from "./_browser.ts";

/** Runs `fn` with a page at a fresh hook's Forward to; the console is closed after it. */
export async function withForwardPage(
  fn: (page: Page, at: { origin: string; hookId: string }) => Promise<void>,
): Promise<void> {
  const t = await startConsole({ buildAssets: true });
  try {
    const client = await signIn(t.origin);
    await connectSandbox(client, t.origin);
    const hookId = await registerHook(client, t.origin);
    await withBrowser(async (browser) => {
      const page = await signedInPage(browser, client, t.origin);
      await page.goto(`${t.origin}/webhooks/${hookId}/forward`);
      await fn(page, { origin: t.origin, hookId });
    });
  } finally {
    await t.close();
  }
}
