// Test helper: the shipped global bundle (community.min.js, built fresh into a
// temp dir) on a page served from 127.0.0.1, opened in real Chromium with its
// page errors collected, for the tests that run Library B there.

import { buildBrowserBundle } from "../../build/mod.ts";
import { type Page, withBrowser } from "../_chromium.ts";
import { startServer } from "./_server.ts";

/** Options for {@linkcode openBundlePage}. */
export interface BundlePageOptions {
  /** The page's title; it also names the temp dir the bundle is built into. */
  title: string;
  /** More classic scripts for the page, by path (`"/fuzz.js"`), loaded after the bundle in this order. */
  scripts?: Record<string, string>;
  /** HTML in the page's head before the scripts (a `<style>`). */
  head?: string;
  /** The page's body, after the scripts. */
  body?: string;
  /** Scripts served by path but not loaded by the page, for the test to load. */
  served?: Record<string, string>;
  /** More routes of the page's server, tried before its own (`undefined` passes the request on). */
  routes?: (req: Request, url: URL) => Response | undefined;
}

/**
 * Builds the global bundle, serves it on a page (`/page`) with `options.head` before it, `options.scripts` after
 * it and `options.body` last (and `options.served` beside the page), opens that page in Chromium and runs `fn`
 * with it and the page errors collected since before it loaded; the server, browser and temp dir are gone
 * afterwards.
 *
 * @param options The page's title and its other scripts.
 * @param fn What the test does with the page; it asserts on `errors` itself.
 * @returns Once `fn` has finished and everything is closed.
 */
export async function openBundlePage(
  options: BundlePageOptions,
  fn: (page: Page, errors: string[]) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: `browser_${options.title}_` });
  try {
    const bundle = await Deno.readTextFile((await buildBrowserBundle(`${dir}/community.min.js`)).path);
    const scripts: Record<string, string> = { "/community.min.js": bundle, ...options.scripts };
    const html = `<!doctype html><meta charset="utf-8"><title>${options.title}</title>${options.head ?? ""}` +
      Object.keys(scripts).map((path) => `<script src="${path}"></script>`).join("") +
      (options.body === undefined ? "" : `<body>${options.body}</body>`);
    const files = { ...options.served, ...scripts };
    const server = startServer((req, url) => {
      const routed = options.routes?.(req, url);
      if (routed) return routed;
      const js = Object.hasOwn(files, url.pathname) ? files[url.pathname] : undefined;
      if (js !== undefined) return new Response(js, { headers: { "content-type": "text/javascript" } });
      if (url.pathname === "/page") return new Response(html, { headers: { "content-type": "text/html" } });
    });
    try {
      await withBrowser(async (browser) => {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on("pageerror", (err) => errors.push(String(err)));
        await page.goto(`${server.base}/page`);
        await fn(page, errors);
      });
    } finally {
      await server.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
