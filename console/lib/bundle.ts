/**
 * Builds the browser assets at start: one esbuild bundle of the islands'
 * client entry (`console/islands/_client.ts`) and Library B's global bundle
 * (`build/mod.ts`). Both are written under
 * `console/static/_build/` (gitignored) and kept in memory for serving.
 *
 * @module
 */

import * as esbuild from "esbuild";
import { buildBrowserBundle } from "../../build/mod.ts";

/** Built assets by file name (`islands.js`, `community.min.js`). */
export type Assets = Map<string, Uint8Array>;

/** File name of the islands bundle under `/static/_build/`. */
export const ISLANDS_FILE = "islands.js";
/** File name of Library B's global bundle under `/static/_build/`. */
export const LIBRARY_B_FILE = "community.min.js";

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

async function buildLibraryB(): Promise<Uint8Array> {
  // Built into a temp file, then moved into place, so that parallel starts
  // never read a half-written file.
  const dir = await Deno.makeTempDir({ prefix: "console_build_" });
  try {
    const out = `${dir}/${LIBRARY_B_FILE}`;
    await buildBrowserBundle(out);
    const data = await Deno.readFile(out);
    await writeAtomically(new URL(LIBRARY_B_FILE, BUILD_DIR), data);
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
    assets.set(ISLANDS_FILE, islands);
    await writeAtomically(new URL(ISLANDS_FILE, BUILD_DIR), islands);
    assets.set(LIBRARY_B_FILE, await buildLibraryB());
  } finally {
    await esbuild.stop();
  }
  return assets;
}
