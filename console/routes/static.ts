/**
 * Static files: `console/static/*` from disk, the stylesheet
 * (`/static/style.css`, joined from `console/static/css/` at start) and the
 * bundles built at start (`/static/_build/islands.js`,
 * `/static/_build/browser.js`) from memory.
 *
 * @module
 */

import type { Hono } from "hono";
import type { Assets } from "../lib/bundle.ts";
import type { ConsoleEnv } from "../lib/context.ts";
import { stylesheet } from "../lib/stylesheet.ts";

const STATIC_DIR = new URL("../static/", import.meta.url);

/** How long a browser may keep a static file without asking again. */
const STATIC_CACHE = "public, max-age=300";

const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  txt: "text/plain; charset=utf-8",
};

function typeOf(name: string): string {
  return TYPES[name.split(".").pop() ?? ""] ?? "application/octet-stream";
}

/** Adds the static routes to `app`. */
export function staticRoutes(app: Hono<ConsoleEnv>, assets: Assets): void {
  const css = stylesheet();
  // Kept as several files, served as one: the page makes one stylesheet request, as before.
  app.get(
    "/static/style.css",
    (c) => c.body(css, 200, { "content-type": typeOf("style.css"), "cache-control": STATIC_CACHE }),
  );

  app.get("/static/_build/:file", (c) => {
    const file = c.req.param("file");
    const data = assets.get(file);
    if (!data) return c.text("Not found", 404);
    return c.body(data as Uint8Array<ArrayBuffer>, 200, {
      "content-type": typeOf(file),
      "cache-control": "no-cache",
    });
  });

  app.get("/static/:file{[A-Za-z0-9_][A-Za-z0-9_.-]*}", async (c) => {
    const file = c.req.param("file");
    try {
      const data = await Deno.readFile(new URL(file, STATIC_DIR));
      return c.body(data, 200, {
        "content-type": typeOf(file),
        "cache-control": STATIC_CACHE,
      });
    } catch {
      return c.text("Not found", 404);
    }
  });
}
