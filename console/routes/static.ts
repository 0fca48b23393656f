/**
 * Static files: `console/static/*` from disk and the bundles built at
 * start (`/static/_build/islands.js`, `/static/_build/browser.js`) from
 * memory.
 *
 * @module
 */

import type { Hono } from "hono";
import type { Assets } from "../lib/bundle.ts";
import type { ConsoleEnv } from "../lib/context.ts";

const STATIC_DIR = new URL("../static/", import.meta.url);

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
        "cache-control": "public, max-age=300",
      });
    } catch {
      return c.text("Not found", 404);
    }
  });
}
