/**
 * Selection and traversal: `byId`, `byName`, `byClass`, `byTag`,
 * `bySelector`, `bySelectorAll`, `parent`. Lookups use the document set with
 * `setDoc` (or the page's own); `parent` may be a document, element or
 * document fragment.
 *
 * @module
 */

import { fail, getDoc, need } from "./_doc.ts";
import { hasClass } from "./classes.ts";
import { isFunc, isNum } from "./is.ts";

/** Where a search looks: a document, an element or a document fragment. */
export type Scope = Document | Element | DocumentFragment;

function scope(parent?: Scope | null): Scope {
  const node = parent ?? getDoc();
  if (!isFunc(node?.querySelectorAll)) {
    fail("parent", "a parent node", parent);
  }
  return node;
}

/**
 * Finds the element with the given id.
 *
 * @param id the id
 * @returns the element, or `null`
 * @throws {TypeError} when `id` is not a string
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { byId, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * doc.body.innerHTML = `<p id="intro">hi</p>`;
 * assert.equal(byId("intro")?.textContent, "hi");
 * assert.equal(byId("missing"), null);
 * ```
 */
export function byId(id: string): HTMLElement | null {
  return getDoc().getElementById(need(id, "sid"));
}

/**
 * Finds the first element with the given `name` attribute.
 *
 * @param name the name
 * @returns the element, or `null`
 * @throws {TypeError} when `name` is not a string
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { byName, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * doc.body.innerHTML = `<input name="email">`;
 * assert.equal(byName("email")?.tagName, "INPUT");
 * ```
 */
export function byName(name: string): HTMLElement | null {
  return getDoc().getElementsByName(need(name, "sname"))[0] ?? null;
}

/**
 * Finds the elements having all the given classes.
 *
 * @param cls class names, space-separated
 * @param parent where to look (default: the document)
 * @typeParam E the element type the caller expects (default `HTMLElement`)
 * @returns the elements in document order (empty when none, or for no class names)
 * @throws {TypeError} when `cls` is not a string or `parent` is not a document, element or fragment
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { byClass, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * doc.body.innerHTML = `<b class="a b" id="x"></b><b class="a"></b>`;
 * assert.deepStrictEqual(byClass("b a").map((el) => el.id), ["x"]);
 * assert.equal(byClass("a").length, 2);
 * ```
 */
export function byClass<E extends Element = HTMLElement>(cls: string, parent?: Scope | null): E[] {
  need(cls, "scls");
  return [...scope(parent).querySelectorAll<E>("[class]")].filter((el) => hasClass(el, cls));
}

/**
 * Finds the elements with the given tag name (`*` for all).
 *
 * @param tag the tag name, any case
 * @param parent where to look (default: the document)
 * @typeParam E the element type the caller expects (default `HTMLElement`)
 * @returns the elements in document order, empty when none are found (an empty tag name finds none,
 *   without looking at `parent`: within the bundle's 4 KB the check costs more than it is worth)
 * @throws {TypeError} when `tag` is not a string, or is not empty and `parent` is not a document, element or fragment
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { byTag, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * doc.body.innerHTML = `<ul><li>1</li><li>2</li></ul>`;
 * assert.equal(byTag("li").length, 2);
 * assert.deepStrictEqual(byTag("table"), []);
 * assert.deepStrictEqual(byTag(""), []);
 * ```
 */
export function byTag<E extends Element = HTMLElement>(tag: string, parent?: Scope | null): E[] {
  return need(tag, "stag") ? [...scope(parent).querySelectorAll<E>(tag)] : [];
}

/**
 * Finds the first element matching a selector.
 *
 * @param selector CSS selectors, comma-separated
 * @param parent where to look (default: the document)
 * @typeParam E the element type the caller expects (default `HTMLElement`)
 * @returns the element, or `null`
 * @throws {TypeError} when `selector` is not a string or `parent` is not a document, element or fragment
 * @throws {DOMException} (`SyntaxError`) when `selector` is not a valid selector
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { bySelector, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * doc.body.innerHTML = `<nav><a id="home" href="/">Home</a></nav>`;
 * assert.equal(bySelector("footer a, nav a")?.id, "home");
 * ```
 */
export function bySelector<E extends Element = HTMLElement>(
  selector: string,
  parent?: Scope | null,
): E | null {
  return scope(parent).querySelector<E>(need(selector, "sselector"));
}

/**
 * Finds all the elements matching a selector.
 *
 * @param selector CSS selectors, comma-separated
 * @param parent where to look (default: the document)
 * @typeParam E the element type the caller expects (default `HTMLElement`)
 * @returns the elements in document order
 * @throws {TypeError} when `selector` is not a string or `parent` is not a document, element or fragment
 * @throws {DOMException} (`SyntaxError`) when `selector` is not a valid selector
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { bySelectorAll, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * doc.body.innerHTML = `<h1>a</h1><h2>b</h2><p>c</p>`;
 * assert.deepStrictEqual(bySelectorAll("h1, h2").map((el) => el.tagName), ["H1", "H2"]);
 * ```
 */
export function bySelectorAll<E extends Element = HTMLElement>(
  selector: string,
  parent?: Scope | null,
): E[] {
  return [...scope(parent).querySelectorAll<E>(need(selector, "sselector"))];
}

/**
 * Walks up from `el`. A number is how many levels to go up (`0` gives `el`).
 * A function is called on each ancestor in turn, nearest first: a truthy
 * result ends the walk with that node, `-1` ends it with `undefined`, and
 * reaching the root gives `null`.
 *
 * @param el the starting node
 * @param level levels to go up (default 1), or a test function
 * @typeParam T the node type the caller expects (by default any: an element, or the document past `<html>`)
 * @returns the node found, `null`, or `undefined` when the test returned `-1`
 * @throws {TypeError} when `el` is not a node or `level` is neither a number nor a function
 * @throws {RangeError} when `level` is a negative or fractional number
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { byId, parent, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * doc.body.innerHTML = `<form id="f"><div><input id="i"></div></form>`;
 * const input = byId("i")!;
 * assert.equal((parent(input, 2) as Element).id, "f");
 * assert.equal((parent(input, (n) => (n as Element).tagName === "FORM") as Element).id, "f");
 * assert.equal(parent(input, () => -1), undefined);
 * ```
 */
// deno-lint-ignore no-explicit-any
export function parent<T extends Node = any>(
  el: Node,
  level: number | ((node: Node) => unknown) = 1,
): T | null | undefined {
  need(el, "nel");
  if (isFunc(level)) {
    while ((el = el.parentNode as Node)) {
      const found = level(el);
      if (found) return found === -1 ? undefined : el as T;
    }
    return null;
  }
  if (!(Number.isInteger(level) && level >= 0)) {
    fail(
      "level",
      "a whole number or a function",
      level,
      isNum(level) ? RangeError : TypeError,
    );
  }
  while (el && level--) el = el.parentNode as Node;
  return el as T;
}
