// The fuzz properties of _fuzz_props.ts in real Chromium, against the shipped
// global bundle (community.min.js on a page), with fast-check bundled for the
// page by esbuild. Chromium keeps the standard __proto__ accessor, so an
// attack that got through would really pollute there.
import assert from "node:assert/strict";
import * as esbuild from "esbuild";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { browserTestOptions } from "../_chromium.ts";
import { openBundlePage } from "./_bundle_page.ts";

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
    const fuzz = await fuzzScript();
    await openBundlePage({ title: "fuzz", scripts: { "/fuzz.js": fuzz } }, async (page, errors) => {
      const findings = await page.evaluate(() =>
        (globalThis as unknown as { runFuzz(n: number): string[] }).runFuzz(500)
      );
      assert.deepEqual(findings, []);
      assert.deepEqual(errors, []);
    });
  },
});
