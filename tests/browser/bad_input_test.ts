// Every helper, every argument position, a set of wrong values: the call either
// works (a documented no-op or a value it accepts) or throws a TypeError or
// RangeError naming the argument, or the DOM's own DOMException. Never a crash
// deep inside such as "Cannot read properties of undefined".
import assert from "node:assert/strict";
import * as lib from "../../browser/mod.ts";
import { domTest } from "./_dom.ts";

const BAD: [string, unknown][] = [
  ["undefined", undefined],
  ["null", null],
  ["0", 0],
  ["NaN", NaN],
  ["empty string", ""],
  ["string", "x y"],
  ["object", {}],
  ["array", []],
  ["symbol", Symbol("s")],
  ["function", () => {}],
  ["true", true],
];

function validArgs(doc: Document): Record<string, unknown[]> {
  const el = () => {
    const p = doc.createElement("p");
    doc.body.append(p);
    return p;
  };
  const fn = () => {};
  return {
    addClass: [el(), "a"],
    delClass: [el(), "a"],
    setClass: [el(), "a"],
    hasClass: [el(), "a"],
    addScript: ["/x.js", {}],
    adj: [el(), "<i></i>", "back"],
    append: [el(), doc.createElement("i")],
    replace: [el(), doc.createElement("i")],
    remove: [el()],
    create: ["div", {}, {}],
    frag: ["<i></i>"],
    render: [doc.createElement("p"), {}],
    setAttrs: [el(), {}, {}],
    setDoc: [doc],
    byId: ["x"],
    byName: ["x"],
    byClass: ["x", doc],
    byTag: ["p", doc],
    bySelector: ["p", doc],
    bySelectorAll: ["p", doc],
    parent: [el(), 1],
    getOffset: [el()],
    getScroll: [],
    getStyle: [el(), "color", ""],
    setStyle: [el(), "color", "red", false],
    setStyles: [el(), {}, false],
    getVendorPrefix: ["color", false],
    resolvePrefix: ["color", el(), false],
    resolveProperty: ["color"],
    onFrame: [fn, null],
    cancelFrame: [fn],
    listen: [el(), "click", fn],
    processEvent: [new (doc.defaultView as unknown as { Event: typeof Event }).Event("x"), false, false],
    args: [[1]],
    bind: [fn, null, [], []],
    clone: [{}, false],
    merge: [{}, {}, {}],
    each: [[], fn],
    extend: [class {}, class {}, {}],
    get: [{}, "a", 1],
    set: [{}, "a", 1, false],
    remix: [{}, {}],
    capitalize: ["a"],
    trim: ["a"],
    buildQuery: [{}],
    parseQuery: ["a=1"],
    request: ["/x", fn, {}],
    isArray: [1],
    isBool: [1],
    isDom: [1],
    isFunc: [1],
    isNull: [1],
    isNum: [1],
    isObj: [1],
    isStr: [1],
    isUnd: [1],
  };
}

domTest("every helper rejects wrong argument types cleanly or ignores them as documented", ({ doc }) => {
  const valid = validArgs(doc);
  const names = Object.keys(lib).filter((name) => typeof (lib as Record<string, unknown>)[name] === "function");
  assert.equal(names.length, 56);
  const crashes: string[] = [];
  for (const name of names) {
    const fn = (lib as unknown as Record<string, (...a: unknown[]) => unknown>)[name];
    const base = valid[name];
    assert.ok(base, `no valid arguments for ${name}`);
    for (let i = 0; i < Math.max(base.length, 1); i++) {
      for (const [label, bad] of BAD) {
        const args = [...base];
        args[i] = bad;
        try {
          fn(...args);
        } catch (err) {
          const e = err as Error;
          const clean = (e instanceof TypeError || e instanceof RangeError) && e.message.startsWith("Expected '") ||
            e?.constructor?.name === "DOMException";
          if (!clean) crashes.push(`${name}(arg ${i} = ${label}): ${e?.constructor?.name}: ${e?.message}`);
        } finally {
          lib.setDoc(doc);
          lib.cancelFrame(args[0] as () => void);
        }
      }
    }
  }
  assert.deepEqual(crashes, []);
});
