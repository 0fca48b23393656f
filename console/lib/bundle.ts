/**
 * Builds the browser assets at start: one esbuild bundle of the islands'
 * client entry (`console/islands/_client.ts`) and Library B's global bundle
 * (helper-1's `scripts/build_browser.ts`). Both are written under
 * `console/static/_build/` (gitignored) and kept in memory for serving.
 *
 * @module
 */

import * as esbuild from "esbuild";

/** Built assets by file name (`islands.js`, `browser.js`). */
export type Assets = Map<string, Uint8Array>;

const CONSOLE_DIR = new URL("../", import.meta.url);
const BUILD_DIR = new URL("../static/_build/", import.meta.url);

async function writeAtomically(url: URL, data: Uint8Array): Promise<void> {
  await Deno.mkdir(BUILD_DIR, { recursive: true });
  const tmp = new URL(
    `${url.pathname.split("/").pop()}.${crypto.randomUUID()}.tmp`,
    BUILD_DIR,
  );
  await Deno.writeFile(tmp, data);
  await Deno.rename(tmp, url);
}

async function buildIslands(): Promise<Uint8Array> {
  const result = await esbuild.build({
    entryPoints: [new URL("islands/_client.ts", CONSOLE_DIR).pathname],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: ["es2022"],
    jsx: "automatic",
    jsxImportSource: "preact",
    minify: true,
    logLevel: "silent",
    absWorkingDir: new URL("../", CONSOLE_DIR).pathname,
  });
  return result.outputFiles[0].contents;
}

async function esbuildGlobal(): Promise<Uint8Array> {
  const result = await esbuild.build({
    entryPoints: [new URL("../browser/global.ts", CONSOLE_DIR).pathname],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: ["es2022"],
    minify: true,
    logLevel: "silent",
  });
  return result.outputFiles[0].contents;
}

async function buildLibraryB(): Promise<Uint8Array> {
  // helper-1's builder writes a classic-script bundle; build it into a temp
  // file so that parallel starts never read a half-written file.
  const specifier = new URL("../../scripts/build_browser.ts", import.meta.url)
    .href;
  try {
    await Deno.stat(new URL(specifier));
  } catch {
    // Without the builder script, bundle `browser/global.ts` here.
    const data = await esbuildGlobal();
    await writeAtomically(new URL("browser.js", BUILD_DIR), data);
    return data;
  }
  const mod = await import(specifier) as {
    buildBrowserBundle(outFile?: string): Promise<unknown>;
  };
  const dir = await Deno.makeTempDir({ prefix: "console_build_" });
  try {
    const out = `${dir}/browser.js`;
    await mod.buildBrowserBundle(out);
    const data = await Deno.readFile(out);
    await writeAtomically(new URL("browser.js", BUILD_DIR), data);
    return data;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Builds the islands bundle and Library B's global bundle.
 *
 * @returns the assets by file name
 */
export async function buildAssets(): Promise<Assets> {
  const assets: Assets = new Map();
  try {
    const islands = await buildIslands();
    assets.set("islands.js", islands);
    await writeAtomically(new URL("islands.js", BUILD_DIR), islands);
    assets.set("browser.js", await buildLibraryB());
  } finally {
    await esbuild.stop();
  }
  return assets;
}
