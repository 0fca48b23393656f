/**
 * The build part: Library B's global installer (`browser/global.ts`) bundled
 * for a classic `<script>` tag, one minified IIFE that puts every helper on
 * `globalThis` (esbuild, then a terser pass). The console serves it, the
 * tests load it into Chromium, `deno task build:browser`
 * (`scripts/build_browser.ts`) writes it, and the benchmarks measure it.
 *
 * @module
 */

import * as esbuild from "esbuild";
import { minify } from "terser";
import { gzipSync } from "node:zlib";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The project's root folder. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Where `build:browser` writes the bundle by default. */
export const DEFAULT_OUT: string = join(
  ROOT,
  "console/static/_build/community.min.js",
);

/** What {@linkcode buildBrowserBundle} wrote. */
export interface BundleResult {
  /** Absolute path of the bundle. */
  path: string;
  /** Size of the minified bundle in bytes. */
  bytes: number;
  /** Size of the minified bundle gzipped (level 9) in bytes. */
  gzipBytes: number;
  /** Gzipped size after esbuild's minifier alone, before terser's pass. */
  esbuildGzipBytes: number;
}

/**
 * Builds the minified classic-script bundle of `browser/global.ts`. It
 * stops esbuild's service when done (`esbuild.stop()`), so do not run it at
 * the same time as another esbuild build of the same process; one after the
 * other is fine (esbuild starts again on the next build).
 *
 * @param outFile where to write it (default {@linkcode DEFAULT_OUT})
 * @returns the path and the sizes
 */
export async function buildBrowserBundle(
  outFile: string = DEFAULT_OUT,
): Promise<BundleResult> {
  const path = resolve(outFile);
  try {
    const result = await esbuild.build({
      entryPoints: [join(ROOT, "browser/global.ts")],
      bundle: true,
      minify: true,
      format: "iife",
      platform: "browser",
      target: "es2022",
      legalComments: "none",
      write: false,
      logLevel: "silent",
    });
    const first = result.outputFiles[0];
    const code = new TextEncoder().encode(await minifyForBrowser(first.text));
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeFile(path, code);
    return {
      path,
      bytes: code.byteLength,
      gzipBytes: gzipSync(code, { level: 9 }).byteLength,
      esbuildGzipBytes: gzipSync(first.contents, { level: 9 }).byteLength,
    };
  } finally {
    await esbuild.stop();
  }
}

/**
 * The second minifying pass of Library B's bundle, after esbuild's: terser,
 * three compress passes, function expressions that use no `this` made
 * arrows, and `var` declarations hoisted to the top of their function (7 B
 * less gzipped); arrow-valued object properties written as methods (13 B less
 * gzipped: the bundle's code uses no `this`, and neither arrows nor methods
 * can be called with `new`) and statements left unjoined by commas (5 B less
 * gzipped: the repeats compress better). It takes 4.2% off the gzipped bundle
 * (what keeps Library B within its 4 KB budget). `scripts/bench.ts` runs
 * every library it compares through the same two passes.
 *
 * @param code minified JavaScript (a script, or an ES module with `module`)
 * @param module whether `code` is an ES module
 * @returns the smaller code
 */
export async function minifyForBrowser(code: string, module = false): Promise<string> {
  const out = await minify(code, {
    ecma: 2020,
    module,
    compress: { passes: 3, unsafe_arrows: true, unsafe_methods: true, hoist_vars: true, sequences: false },
    mangle: true,
    format: { comments: false },
  });
  if (out.code === undefined) throw new Error("terser returned no code");
  return out.code;
}

/** Minified libraries the bundle is compared with (`--compare`), as shipped in node_modules. */
export const PEERS: Record<string, string> = {
  "umbrellajs 3": "node_modules/umbrellajs/umbrella.min.js",
  "cash-dom 8": "node_modules/cash-dom/dist/cash.min.js",
  "jquery 4": "node_modules/jquery/dist/jquery.min.js",
};

/**
 * Sizes of the peer libraries, measured like the bundle (gzip level 9).
 *
 * @returns name, minified bytes and gzipped bytes of each peer found
 */
export async function peerSizes(): Promise<{ name: string; bytes: number; gzipBytes: number }[]> {
  const out = [];
  for (const [name, file] of Object.entries(PEERS)) {
    try {
      const code = await Deno.readFile(join(ROOT, file));
      out.push({ name, bytes: code.byteLength, gzipBytes: gzipSync(code, { level: 9 }).byteLength });
    } catch {
      // not installed: leave it out
    }
  }
  return out;
}
