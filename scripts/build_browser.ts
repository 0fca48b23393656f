/**
 * `deno task build:browser`: writes Library B's global bundle (see
 * `build/mod.ts`) and prints its sizes.
 *
 * ```sh
 * deno task build:browser                 # console/static/_build/community.min.js
 * deno task build:browser --out dist/b.js # another path
 * deno task build:browser --compare       # beside umbrella, cash-dom and jQuery
 * ```
 *
 * @module
 */

import { buildBrowserBundle, peerSizes } from "../build/mod.ts";

function parseOut(args: string[]): string | undefined {
  const i = args.findIndex((a) => a === "--out" || a.startsWith("--out="));
  if (i < 0) return undefined;
  const value = args[i].includes("=") ? args[i].slice(6) : args[i + 1];
  if (!value) throw new TypeError("Expected a path after --out, got nothing");
  return value;
}

if (import.meta.main) {
  const { path, bytes, gzipBytes } = await buildBrowserBundle(
    parseOut(Deno.args),
  );
  console.log(
    `${path}: ${bytes} bytes minified, ${gzipBytes} bytes gzipped (${(gzipBytes / 1024).toFixed(2)} KB)`,
  );
  if (Deno.args.includes("--compare")) {
    for (const peer of await peerSizes()) {
      console.log(`${peer.name}: ${peer.bytes} bytes minified, ${peer.gzipBytes} bytes gzipped`);
    }
  }
}
