/**
 * Importing this module installs every Library B helper on `globalThis`
 * (SPEC.md's global helper functions), for pages that load the library with
 * a classic `<script>` tag. `deno task build:browser` bundles it, minified,
 * to `console/static/_build/community.min.js`.
 *
 * Installing overwrites globals of the same names; note that the browser's
 * `window.parent` becomes the `parent` helper.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import "./global.ts";
 * const g = globalThis as unknown as { capitalize(s: string): string };
 * assert.equal(g.capitalize("hi"), "Hi");
 * ```
 *
 * @module
 */

import * as lib from "./mod.ts";

Object.assign(globalThis, lib);
