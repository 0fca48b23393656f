// The fuzz properties of _fuzz_props.ts in real Chromium, against the shipped
// global bundle (community.min.js on a page), with fast-check bundled for the
// page by esbuild. Chromium keeps the standard __proto__ accessor, so an
// attack that got through would really pollute there.
import assert from "node:assert/strict";
import * as esbuild from "esbuild";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBrowserBundle } from "../../build/mod.ts";
import { browserTestOptions, withBrowser } from "../_chromium.ts";
import { startServer } from "./_server.ts";

const HERE = dirname(fileURLToPath(import.meta.url));

/** The properties and fast-check as one classic script that defines window.runFuzz(numRuns). */
async function fuzzScript(): Promise<string> {
  try {
    const out = await esbuild.build({
      stdin: {
        contents: `import fc from "fast-check";
import { runProperties } from "./_fuzz_props.ts";
globalThis.runFuzz = (numRuns) => runProperties(globalThis, fc, numRuns);`,
        resolveDir: HERE,
        loader: "ts",
      },
      bundle: true,
      format: "iife",
      platform: "browser",
      target: "es2022",
      write: false,
    });
    return out.outputFiles[0].text;
  } finally {
    await esbuild.stop();
  }
}

Deno.test({
  name: "Library B's fuzz properties hold in Chromium against the shipped bundle",
  ...browserTestOptions,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "browser_fuzz_" });
    const bundle = await Deno.readTextFile((await buildBrowserBundle(`${dir}/community.min.js`)).path);
    const fuzz = await fuzzScript();
    const server = startServer((_, url) => {
      const js = { "/community.min.js": bundle, "/fuzz.js": fuzz }[url.pathname];
      if (js) return new Response(js, { headers: { "content-type": "text/javascript" } });
      if (url.pathname === "/page") {
        return new Response(
          `<!doctype html><meta charset="utf-8"><title>fuzz</title>
<script src="/community.min.js"></script><script src="/fuzz.js"></script>`,
          { headers: { "content-type": "text/html" } },
        );
      }
    });
    try {
      await withBrowser(async (browser) => {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on("pageerror", (err) => errors.push(String(err)));
        await page.goto(`${server.base}/page`);
        const findings = await page.evaluate(() =>
          (globalThis as unknown as { runFuzz(n: number): string[] }).runFuzz(500)
        );
        assert.deepEqual(findings, []);
        assert.deepEqual(errors, []);
      });
    } finally {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
