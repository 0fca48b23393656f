// The bundle-size comparison of scripts/bench.ts: Library B's global bundle
// beside umbrella, cash-dom and jQuery, and the seven object and query helpers
// tree-shaken beside lodash-es and qs, all through the same two minifying
// passes. Private to scripts/.

import * as esbuild from "esbuild";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { buildBrowserBundle, minifyForBrowser } from "../build/mod.ts";
import { log, ROOT } from "./_bench_run.ts";

export interface Size {
  name: string;
  source: string;
  bytes: number;
  gzipBytes: number;
}

export function sizesOf(name: string, source: string, code: Uint8Array): Size {
  return { name, source, bytes: code.byteLength, gzipBytes: gzipSync(code, { level: 9 }).byteLength };
}

export async function packageVersion(pkg: string): Promise<string> {
  return JSON.parse(await Deno.readTextFile(join(ROOT, "node_modules", pkg, "package.json"))).version;
}

/** Makes sure the npm packages measured are in node_modules (a fresh clone has none). */
export async function ensureInstalled(packages: string[]): Promise<void> {
  const missing = [];
  for (const pkg of packages) {
    try {
      await Deno.stat(join(ROOT, "node_modules", pkg, "package.json"));
    } catch {
      missing.push(pkg);
    }
  }
  if (missing.length === 0) return;
  log(`installing npm packages (${missing.join(", ")} missing)`);
  const output = await new Deno.Command(Deno.execPath(), { args: ["install"], cwd: ROOT, stderr: "piped" }).output();
  if (!output.success) throw new Error(`deno install failed:\n${new TextDecoder().decode(output.stderr)}`);
}

/** Library B's gzipped size after esbuild's minifier alone (what terser's pass saved is the difference). */
let firstPassGzip = 0;

/** Library B's gzipped size after esbuild alone, once `bundleSizes` ran. */
export function firstPass(): number {
  return firstPassGzip;
}

/** Minifies each competitor's unminified browser build with the same two passes as Library B (esbuild, then terser). */
export async function bundleSizes(): Promise<Size[]> {
  const competitors = [
    { pkg: "umbrellajs", file: "umbrella.js" },
    { pkg: "cash-dom", file: "dist/cash.js" },
    { pkg: "jquery", file: "dist/jquery.js" },
  ];
  await ensureInstalled([...competitors.map((c) => c.pkg), "lodash-es", "qs"]);
  const sizes: Size[] = [];
  try {
    for (const { pkg, file } of competitors) {
      const code = await Deno.readTextFile(join(ROOT, "node_modules", pkg, file));
      const out = await esbuild.transform(code, {
        minify: true,
        legalComments: "none",
        target: "es2020",
        loader: "js",
      });
      const version = await packageVersion(pkg);
      const min = await minifyForBrowser(out.code);
      sizes.push(sizesOf(`${pkg} ${version}`, `\`${pkg}/${file}\` minified`, new TextEncoder().encode(min)));
    }
    // What the object and query helpers alone cost, tree-shaken, beside what
    // they stand in for.
    const subsets = [
      {
        name: "Library B: get, set, merge, clone, each, buildQuery, parseQuery",
        contents: `export { get, set, merge, clone, each, buildQuery, parseQuery } from "./browser/mod.ts";`,
      },
      {
        name: `lodash-es ${await packageVersion("lodash-es")}: get, set, merge, cloneDeep, each`,
        contents: `export { get, set, merge, cloneDeep, each } from "lodash-es";`,
      },
      {
        name: `qs ${await packageVersion("qs")}: parse, stringify`,
        contents: `export { parse, stringify } from "qs";`,
      },
    ];
    for (const { name, contents } of subsets) {
      const result = await esbuild.build({
        stdin: { contents, resolveDir: ROOT, loader: "ts" },
        bundle: true,
        minify: true,
        format: "esm",
        platform: "browser",
        target: "es2020",
        legalComments: "none",
        write: false,
        logLevel: "silent",
      });
      const min = await minifyForBrowser(result.outputFiles[0].text, true);
      sizes.push(sizesOf(name, "tree-shaken ESM bundle", new TextEncoder().encode(min)));
    }
  } finally {
    await esbuild.stop();
  }
  const dir = await Deno.makeTempDir({ prefix: "bench_bundle_" });
  try {
    const built = await buildBrowserBundle(join(dir, "community.min.js"));
    firstPassGzip = built.esbuildGzipBytes;
    sizes.unshift({
      name: "Library B (every helper)",
      source: "`deno task build:browser` (`browser/global.ts`, IIFE)",
      bytes: built.bytes,
      gzipBytes: built.gzipBytes,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  return sizes;
}
