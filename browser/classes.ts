/**
 * Classes: `addClass`, `delClass`, `setClass` and `hasClass`, each taking
 * the class names as one space-separated string. As in `classList`, only
 * HTML's whitespace (space, tab, line feed, form feed, carriage return)
 * separates names: a no-break space is part of one.
 *
 * @module
 */

import { need } from "./_doc.ts";

function classes(el: Element, cls: string): string[] {
  need(el, "eel");
  return need(cls, "scls").match(/[^\t\n\f\r ]+/g) ?? [];
}

/**
 * Adds a class (or several, space-separated).
 *
 * @param el the element
 * @param cls the class name(s); SPEC.md's `class`
 * @throws {TypeError} when `el` is not an element or `cls` is not a string
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { addClass, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const el = doc.createElement("p");
 * addClass(el, "big red");
 * assert.equal(el.className, "big red");
 * ```
 */
export function addClass(el: Element, cls: string): void {
  const names = classes(el, cls); // before el.classList is read
  el.classList.add(...names);
}

/**
 * Removes a class (or several, space-separated).
 *
 * @param el the element
 * @param cls the class name(s)
 * @throws {TypeError} when `el` is not an element or `cls` is not a string
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { delClass, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const el = doc.createElement("p");
 * el.className = "big red";
 * delClass(el, "big");
 * assert.equal(el.className, "red");
 * ```
 */
export function delClass(el: Element, cls: string): void {
  const names = classes(el, cls);
  el.classList.remove(...names);
}

/**
 * Sets the class attribute, replacing all classes.
 *
 * @param el the element
 * @param cls the class name(s)
 * @throws {TypeError} when `el` is not an element or `cls` is not a string
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { setClass, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const el = doc.createElement("p");
 * el.className = "old";
 * setClass(el, "new");
 * assert.equal(el.className, "new");
 * ```
 */
export function setClass(el: Element, cls: string): void {
  classes(el, cls);
  el.setAttribute("class", cls);
}

/**
 * Tests whether the element has the class (all of them, when several are
 * given space-separated).
 *
 * @param el the element
 * @param cls the class name(s)
 * @returns `true` when every class is present; `false` for no class names
 * @throws {TypeError} when `el` is not an element or `cls` is not a string
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { hasClass, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const el = doc.createElement("p");
 * el.className = "big red";
 * assert.equal(hasClass(el, "red"), true);
 * assert.equal(hasClass(el, "blue"), false);
 * ```
 */
export function hasClass(el: Element, cls: string): boolean {
  const names = classes(el, cls);
  return names.every((c) => el.classList.contains(c)) && !!names[0];
}
