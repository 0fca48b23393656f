// API.md's exports of Library B: browser/mod.ts has exactly SPEC.md 4.3's
// names and no side effect at import; browser/global.ts installs every one
// of them on globalThis; mod.ts carries them as the `browser` namespace.
import assert from "node:assert/strict";
import * as lib from "../../browser/mod.ts";
import * as root from "../../mod.ts";

/** Every name of SPEC.md 4.3, spelled as there. */
const SPEC_NAMES = [
  // DOM and classes
  "addClass",
  "delClass",
  "setClass",
  "hasClass",
  "addScript",
  "adj",
  "append",
  "replace",
  "remove",
  "create",
  "frag",
  "render",
  "setAttrs",
  "setDoc",
  // Selection and traversal
  "byId",
  "byName",
  "byClass",
  "byTag",
  "bySelector",
  "bySelectorAll",
  "parent",
  // Position, style, frames, events
  "getOffset",
  "getScroll",
  "getStyle",
  "setStyle",
  "setStyles",
  "getVendorPrefix",
  "resolvePrefix",
  "resolveProperty",
  "onFrame",
  "cancelFrame",
  "listen",
  "processEvent",
  // Objects, arrays, functions, strings
  "args",
  "bind",
  "clone",
  "merge",
  "each",
  "extend",
  "get",
  "set",
  "remix",
  "capitalize",
  "trim",
  "buildQuery",
  "parseQuery",
  // Type tests
  "isArray",
  "isBool",
  "isDom",
  "isFunc",
  "isNull",
  "isNum",
  "isObj",
  "isStr",
  "isUnd",
  // request
  "request",
].sort(); // deno-fmt-ignore

Deno.test("browser/mod.ts exports exactly SPEC.md 4.3's names, each a function", () => {
  assert.deepEqual(Object.keys(lib).sort(), SPEC_NAMES);
  for (const name of SPEC_NAMES) {
    assert.equal(typeof (lib as Record<string, unknown>)[name], "function", name);
  }
});

Deno.test("mod.ts carries Library B as the browser namespace, and Module A beside it", () => {
  assert.deepEqual(Object.keys(root.browser).sort(), SPEC_NAMES);
  for (const name of SPEC_NAMES) {
    assert.equal((root.browser as Record<string, unknown>)[name], (lib as Record<string, unknown>)[name], name);
  }
  for (const name of ["createWebhooks", "createReceiver", "verifyJiveExtn", "signJiveExtn", "createRelay"]) {
    assert.equal(typeof (root as Record<string, unknown>)[name], "function", name);
  }
});

Deno.test("importing browser/mod.ts installs nothing; importing browser/global.ts installs every helper", async () => {
  const g = globalThis as unknown as Record<string, unknown>;
  // Deno has no window.parent; none of the names is a global before the installer runs.
  assert.deepEqual(SPEC_NAMES.filter((name) => name in g), []);
  await import("../../browser/global.ts");
  assert.deepEqual(SPEC_NAMES.filter((name) => g[name] !== (lib as Record<string, unknown>)[name]), []);
  assert.equal((g.buildQuery as typeof lib.buildQuery)({ a: "b c" }), "a=b%20c");
});
