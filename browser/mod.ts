/**
 * Library B: small browser helpers for the DOM, classes, styles, events,
 * animation frames, objects, strings, query strings and XHR, as named ES
 * module exports with no side effects at import (import only what you use).
 * For global helper functions in a classic `<script>`, see
 * `@community-webhooks/sdk/browser/global`.
 *
 * Outside a browser, give the library a document with {@linkcode setDoc}
 * (for example a happy-dom `Window`'s document); everything that needs a
 * window takes it from `doc.defaultView`, falling back to `globalThis`.
 *
 * Wrong argument types throw a `TypeError` naming the argument (a
 * `RangeError` for values out of range); `merge`, `set`, `clone` and
 * `parseQuery` never write `__proto__`, `constructor` or `prototype` keys;
 * `render` inserts data as text. `adj`, `frag`, `create` and `setAttrs` with
 * a string insert markup: pass them trusted input only.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { addClass, byClass, create, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const item = create("li", { parentNode: doc.body, children: doc.createTextNode("one") });
 * addClass(item, "done");
 * assert.equal(byClass("done")[0].textContent, "one");
 * ```
 *
 * @module
 */

// The bundle (build/mod.ts) takes the files in this order, chosen as the one that gzips smallest.
export * from "./string.ts";
export * from "./dom.ts";
export * from "./query.ts";
export * from "./classes.ts";
export * from "./request.ts";
export * from "./style.ts";
export * from "./create.ts";
export * from "./select.ts";
export * from "./frame.ts";
export * from "./functions.ts";
export * from "./events.ts";
export * from "./is.ts";
export * from "./object.ts";
export * from "./path.ts";
