// The Chromium bench the live_*_e2e_test.ts files on a registered hook share:
// a console with the sandbox connected and a hook registered, a signed-in
// session to give a page, and Chromium.

import { type Browser, type Page, withBrowser } from "../_chromium.ts";
import { type TestConsole, withSignedInHook } from "./_helpers.ts";

export type { TestConsole };

/** What a browser test on a registered hook gets: its console, the hook, a browser, and a way to sign a page in. */
export interface HookBench {
  t: TestConsole;
  hookId: string;
  browser: Browser;
  /** Gives `page` the signed-in session's cookie. */
  signedIn(page: Page): Promise<void>;
}

/** A console with the sandbox connected and a hook registered, a signed-in client, and Chromium. */
export function withHookBrowser(fn: (bench: HookBench) => Promise<void>): Promise<void> {
  return withSignedInHook({ buildAssets: true }, ({ t, client, hookId }) => {
    const cookie = { name: "cw_session", value: client.cookies.get("cw_session")!, url: t.origin };
    return withBrowser((browser) => fn({ t, hookId, browser, signedIn: (page) => page.setCookie(cookie) }));
  });
}

/** A signed-in page on a registered hook's page (`prepare` runs before it loads), with its console. */
export function onHookPage(
  fn: (page: Page, t: TestConsole, hookId: string) => Promise<void>,
  prepare: (page: Page) => Promise<void> = async () => {},
): Promise<void> {
  return withHookBrowser(async ({ t, hookId, browser, signedIn }) => {
    const page = await browser.newPage();
    await prepare(page);
    await signedIn(page);
    await page.goto(`${t.origin}/webhooks/${hookId}`, { waitUntil: "load", timeout: 90_000 });
    await fn(page, t, hookId);
  });
}
