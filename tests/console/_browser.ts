// What the console's Chromium tests do to a page: open one signed in, go to
// a URL and wait for its islands, click and wait for the navigation, and ask
// axe-core what it finds.

import { type Browser, type Page, withBrowser } from "../_chromium.ts";
import type { Client, SignedInHook, SignedInOptions } from "./_helpers.ts";
import { withSignedInHook } from "./_helpers.ts";

const AXE = await Deno.readTextFile(new URL("../../node_modules/axe-core/axe.min.js", import.meta.url));

/**
 * A new page of `browser` with `client`'s session cookie for `origin`; with
 * `axe`, the page's CSP is bypassed first, as axe-core is injected as an
 * inline script ({@linkcode axeViolations}).
 */
export async function signedInPage(
  browser: Browser,
  client: Client,
  origin: string,
  options: { axe?: boolean } = {},
): Promise<Page> {
  const page = await browser.newPage();
  if (options.axe) await page.setBypassCSP(true);
  await page.setCookie({ name: "cw_session", value: client.cookies.get("cw_session")!, url: origin });
  return page;
}

/**
 * {@linkcode withSignedInHook} on a console with its assets built, and in Chromium a new page with the signed-in
 * session's cookie ({@linkcode signedInPage}; `axe` as there), on which nothing is loaded yet.
 */
export function withHookPage(
  options: SignedInOptions & { hook?: Record<string, string | string[]>; axe?: boolean },
  fn: (page: Page, at: SignedInHook & { browser: Browser }) => Promise<void>,
): Promise<void> {
  const { axe, ...rest } = options;
  return withSignedInHook({ buildAssets: true, ...rest }, (at) =>
    withBrowser(async (browser) => {
      await fn(await signedInPage(browser, at.client, at.t.origin, { axe }), { ...at, browser });
    }));
}

/** Goes to `url` and waits (up to 60 s, then 30 s) for it to load and for each of its islands to hydrate. */
export async function gotoHydrated(page: Page, url: string): Promise<void> {
  await page.goto(url, { waitUntil: "load", timeout: 60_000 });
  await page.waitForFunction(
    () => [...document.querySelectorAll<HTMLElement>("[data-island]")].every((el) => el.dataset.hydrated),
    { timeout: 30_000 },
  );
}

/**
 * Waits until the page shown has settled: each of its islands hydrated, and two frames rendered, so that an
 * `autofocus` has been applied. Chromium applies it in a rendering update, which may come after `load`; read focus
 * only after this.
 */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(
    () => [...document.querySelectorAll<HTMLElement>("[data-island]")].every((el) => el.dataset.hydrated),
    { timeout: 30_000 },
  );
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
}

/** Clicks `selector` and waits for the navigation it starts to load. */
export async function clickAndWait(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]);
}

/** axe-core's violations of the page, for the rule tags `rules` (default: WCAG 2 A and AA). */
export async function axeViolations(page: Page, rules: string[] = ["wcag2a", "wcag2aa"]): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  return await page.evaluate(async (runOnly) => {
    // deno-lint-ignore no-explicit-any
    const axe = (globalThis as any).axe;
    const result = await axe.run(document, { runOnly });
    // deno-lint-ignore no-explicit-any
    return result.violations.map((v: any) => `${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target).join(", ")})`);
  }, rules);
}
