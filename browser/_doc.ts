// Private shared state of Library B: the document, set with setDoc() (here, so that setting it is one
// assignment), and the small argument checks every file uses. No side effects at import.

import { isArray, isDom, isFunc, isObj, isStr } from "./is.ts";

let current: Document | undefined;

/**
 * Sets the document the library uses, for use outside a browser (for
 * example a happy-dom `Window`'s document in Deno). Window features
 * (computed styles, animation frames, `XMLHttpRequest`, `location`) come
 * from `doc.defaultView`, falling back to `globalThis`.
 *
 * @param doc the document
 * @returns `doc`
 * @throws {TypeError} when `doc` is not a document
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { byId, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * doc.body.innerHTML = `<p id="x"></p>`;
 * assert.equal(byId("x")?.tagName, "P");
 * ```
 */
export function setDoc<T extends Document>(doc: T): T {
  if (doc?.nodeType !== 9) fail("doc", "a document", doc);
  return current = doc;
}

/** The document set with `setDoc`, else the global one. */
export function getDoc(): Document {
  return current ?? (globalThis as { document?: Document }).document ??
    fail("document", "set with setDoc()", current, Error);
}

/** The window of the document set with `setDoc`, falling back to `globalThis`. */
export function getWin(): Window & typeof globalThis {
  return (current?.defaultView ?? globalThis) as Window & typeof globalThis;
}

/** Throws `Expected 'name' to be what, got value` (a TypeError by default). */
export function fail(
  name: string,
  what: string,
  value: unknown,
  Type: ErrorConstructor = TypeError,
): never {
  throw Type(
    `Expected '${name}' to be ${what}, got ${
      isStr(value)
        ? JSON.stringify(value)
        : isObj(value) || isFunc(value)
        ? value.constructor?.name || "Object"
        : String(value)
    }`,
  );
}

const KINDS: Record<string, [string, (v: unknown) => boolean]> = {
  s: ["a string", isStr],
  f: ["a function", isFunc],
  o: ["an object", isObj],
  a: ["an array", isArray],
  e: ["an element", (v) => (v as Node | null)?.nodeType === 1], // of any window
  n: ["a node", (v) => typeof (v as Node | null)?.nodeType === "number"], // element, text, fragment, document...
  d: ["an element or fragment", isDom],
  c: ["a class", (v) => isObj((v as { prototype?: unknown })?.prototype)],
  y: ["an element or a style object", (v) => isFunc((v as CSSStyleDeclaration)?.setProperty)],
};

/**
 * Checks an argument. `spec` is a kind letter followed by the argument's
 * name: `s` string, `f` function, `o` object, `a` array, `e` element, `n`
 * node, `d` element or fragment, `c` class or constructor, `y` style object; an upper-case kind also accepts `null` and
 * `undefined` (`"Fcallback"`). Returns the value checked, so that a check can sit where the value is used.
 */
export function need<T>(value: T, spec: string): T {
  const [what, test] = KINDS[spec[0].toLowerCase()];
  if (!(spec < "a" && value == null || test(value))) fail(spec.slice(1), what, value);
  return value;
}

/** Whether a value is a plain object: its prototype is `Object.prototype` or `null`. */
export function isPlain(obj: unknown): obj is Record<string, unknown> {
  const proto = isObj(obj) && Object.getPrototypeOf(obj);
  return proto === null || proto === Object.prototype;
}

/** Keys that `merge`, `set`, `clone` and `parseQuery` never write. */
export function isUnsafeKey(key: unknown): boolean {
  return key === "__proto__" || key === "constructor" || key === "prototype";
}

/**
 * Lengths above this walk an array or array-like by its own keys in `each` and are refused by `args`: a sparse array
 * holding one item at 4e9 is one item, not 4e9 steps.
 */
export const LONG = 1e7;
