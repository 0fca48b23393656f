/**
 * DOM and classes: `addClass`, `delClass`, `setClass`, `hasClass`,
 * `addScript`, `adj`, `append`, `replace`, `remove`, `create`, `frag`,
 * `render`, `setAttrs`, and `setDoc`, which sets the document the library
 * uses outside a browser.
 *
 * @module
 */

import { fail, getDoc, need, useDoc } from "./_doc.ts";
import { listen } from "./events.ts";
import { isStr } from "./is.ts";
import { get } from "./object.ts";
import { setStyles } from "./style.ts";

/** Listeners keyed by event name, as for `listen` (a listener may take a specific event type, `MouseEvent`...). */
// deno-lint-ignore no-explicit-any
export type Events = Record<string, (event: any) => unknown>;

/**
 * Attributes for {@linkcode setAttrs} and {@linkcode create}. Special keys:
 * `className`, `innerHTML` (markup: trusted input only), `parentNode` (node
 * to append to), `children` (nodes to append), `styles` (for `setStyles`).
 * Any other key goes through `setAttribute`; `null` or `undefined` removes
 * the attribute.
 */
export interface Attrs {
  /** Sets `el.className`. */
  className?: string;
  /** Sets `el.innerHTML`: markup, so trusted input only. */
  innerHTML?: string;
  /** A node to append `el` to. */
  parentNode?: Element | DocumentFragment | null;
  /** Nodes to append to `el`. */
  children?: Node | null | readonly (Node | null)[];
  /** Inline styles, as for `setStyles`. */
  styles?: Record<string, string | number | null | undefined>;
  /** Any other attribute. */
  [name: string]: unknown;
}

/** Options of {@linkcode addScript}. */
export interface ScriptOptions {
  /** Called when the script has loaded. */
  load?: (event: Event) => unknown;
  /** Called when the script failed to load. */
  error?: (event: Event) => unknown;
}

function classes(el: Element, cls: string): string[] {
  need(el, "eel");
  need(cls, "scls");
  return cls.match(/\S+/g) ?? [];
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
  return !!names[0] && names.every((c) => el.classList.contains(c));
}

/**
 * Adds a script to the page (to `<head>`), loaded asynchronously.
 *
 * @param src the script's URL
 * @param opts listeners for the script's `load` and `error` events
 * @throws {TypeError} when `src` is not a string or a listener is not a function
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { addScript, setDoc } from "./mod.ts";
 * const win = new Window();
 * const doc = setDoc(win.document as unknown as Document);
 * addScript("/app.js", { error: () => {} });
 * assert.equal(doc.head.querySelector("script")?.getAttribute("src"), "/app.js");
 * await win.happyDOM.close();
 * ```
 */
export function addScript(src: string, opts: ScriptOptions = {}): void {
  need(src, "ssrc");
  need(opts, "oopts");
  const doc = getDoc();
  const script = doc.createElement("script");
  for (const type of ["load", "error"] as const) {
    need(opts[type], "Fopts." + type);
    if (opts[type]) listen(script, type, opts[type]);
  }
  script.src = src;
  doc.head.appendChild(script);
}

const WHERE = ["before", "front", "back", "after"];

/**
 * Inserts markup relative to the node: `before` (beforebegin), `front`
 * (afterbegin), `back` (beforeend) or `after` (afterend). `before` and
 * `after` on a node without a parent do nothing.
 *
 * **Security:** `content` is parsed as HTML. Pass trusted markup only; for
 * data use {@linkcode render} or `textContent`.
 *
 * @param node the element
 * @param content the markup to insert (trusted input only)
 * @param where `before`, `front`, `back` or `after`
 * @throws {TypeError} when `node` is not an element or `content` is not a string
 * @throws {RangeError} when `where` is not one of the four values
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { adj, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const list = doc.body.appendChild(doc.createElement("ul"));
 * list.innerHTML = "<li>2</li>";
 * adj(list, "<li>1</li>", "front");
 * adj(list, "<li>3</li>", "back");
 * assert.equal(list.textContent, "123");
 * ```
 */
export function adj(
  node: Element,
  content: string,
  where: string,
): void {
  need(node, "enode");
  need(content, "scontent");
  const i = WHERE.indexOf(where);
  if (i < 0) fail("where", WHERE.join(", "), where, RangeError);
  if (i % 3 || node.parentNode) {
    node.insertAdjacentHTML(
      ((i % 2 ? "after" : "before") + (i < 2 ? "begin" : "end")) as InsertPosition,
      content,
    );
  }
}

/**
 * Safely appends one node to another: when either is `null` or `undefined`
 * nothing happens.
 *
 * @param el the element or fragment to append to
 * @param child the node to append (a fragment's children move over)
 * @throws {TypeError} when `el` is not an element or fragment, or `child` is not a node
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { append, byId, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * append(doc.body, doc.createElement("main"));
 * append(byId("missing"), doc.createElement("p")); // no-op
 * assert.equal(doc.body.lastElementChild?.tagName, "MAIN");
 * ```
 */
export function append(
  el: Element | DocumentFragment | null | undefined,
  child: Node | null | undefined,
): void {
  need(el, "Del");
  need(child, "Nchild");
  if (el && child) el.appendChild(child);
}

/**
 * Safely replaces one element with another: nothing happens when either is
 * `null` or `undefined`, or `old` has no parent.
 *
 * @param old the element to replace
 * @param newEl the replacement; SPEC.md's `new`, a reserved word
 * @throws {TypeError} when `old` or `newEl` is not a node
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { replace, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const old = doc.body.appendChild(doc.createElement("p"));
 * replace(old, doc.createElement("h1"));
 * assert.equal(doc.body.firstElementChild?.tagName, "H1");
 * ```
 */
export function replace(
  old: Element | null | undefined,
  newEl: Node | null | undefined,
): void {
  need(old, "Nold");
  need(newEl, "NnewEl");
  if (newEl) old?.parentNode?.replaceChild(newEl, old);
}

/**
 * Removes the element from the DOM. Nothing happens for `null`, `undefined`
 * or a node without a parent.
 *
 * @param el the node to remove
 * @throws {TypeError} when `el` is not a node
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { remove, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const p = doc.body.appendChild(doc.createElement("p"));
 * remove(p);
 * assert.equal(doc.body.children.length, 0);
 * ```
 */
export function remove(el: Node | null | undefined): void {
  need(el, "Nel");
  el?.parentNode?.removeChild(el);
}

/**
 * Creates an element and applies {@linkcode setAttrs}.
 *
 * @param el the tag name
 * @param attrs attributes, as for `setAttrs` (a string is `innerHTML`: trusted markup only)
 * @param events listeners keyed by event name
 * @returns the new element
 * @throws {TypeError} when `el` is not a string, or as `setAttrs`
 * @throws {DOMException} (`InvalidCharacterError`) when `el` is not a valid tag name
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { create, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const link = create("a", { href: "/docs", className: "nav", parentNode: doc.body });
 * assert.equal(doc.body.innerHTML, `<a href="/docs" class="nav"></a>`);
 * assert.equal(link.tagName, "A");
 * ```
 */
export function create(
  el: string,
  attrs?: Attrs | string | null,
  events?: Events | null,
): HTMLElement {
  need(el, "sel");
  return setAttrs(getDoc().createElement(el), attrs, events);
}

/**
 * Creates a document fragment. A string is parsed as markup (trusted input
 * only; scripts in it do not run); a node is cloned (deeply) before it is
 * appended.
 *
 * @param content markup or a node
 * @returns the fragment
 * @throws {TypeError} when `content` is neither a string nor a node
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { frag, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const fragment = frag("<li>a</li><li>b</li>");
 * assert.equal(fragment.childNodes.length, 2);
 * const p = doc.createElement("p");
 * assert.equal(frag(p).firstChild === p, false); // a clone
 * ```
 */
export function frag(content?: string | Node | null): DocumentFragment {
  const doc = getDoc();
  if (isStr(content)) {
    const template = doc.createElement("template");
    template.innerHTML = content;
    return template.content; // inert: nothing loads or runs until inserted
  }
  const fragment = doc.createDocumentFragment();
  need(content, "Ncontent");
  if (content) fragment.appendChild(content.cloneNode(true));
  return fragment;
}

const PLACEHOLDER = /{{\s*(.*?)\s*}}/g;

function fill(el: Element & Text, data: object): void {
  const sub = (text: string) => text.replace(PLACEHOLDER, (_, path: string) => (get(data, path) ?? "") as string); // replace() makes it a string
  if (el.nodeType === 3) el.data = sub(el.data);
  else if (el.tagName !== "SCRIPT") { // never turn data into code
    for (const attr of [...el.attributes ?? []]) {
      if (attr.value.includes("{{") && !/^on/i.test(attr.name)) attr.value = sub(attr.value);
    }
    for (const child of [...el.childNodes]) fill(child as Element & Text, data);
  }
}

/**
 * Renders data into `{{path}}` placeholders (spaces allowed: `{{ a.b }}`)
 * in text nodes and attribute values, each replaced with
 * `get(data, path, "")`. Data is inserted as text, never parsed as markup;
 * `<script>` contents and `on*` attributes are left alone. A fragment (or a
 * `<template>`'s content) is cloned and the clone is rendered and returned;
 * an element is rendered in place and returned. Data in URL attributes
 * (`href`, `src`) is inserted as it is: check URLs from untrusted sources.
 *
 * @param frag a fragment, a `<template>`, or an element
 * @param data the values
 * @typeParam T the target's type: a fragment or `<template>` gives a `DocumentFragment`, another element
 *   itself (a wide `HTMLElement` or `Element` may be a `<template>`: `any`)
 * @returns the rendered clone of a fragment or template, or the element itself
 * @throws {TypeError} when `frag` is not an element or fragment, or `data` is not an object
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { frag, render, setDoc } from "./mod.ts";
 * setDoc(new Window().document as unknown as Document);
 * const tpl = frag(`<p title="{{ user.name }}">Hi {{user.name}}</p>`);
 * const out = render(tpl, { user: { name: "<b>Ada</b>" } });
 * const p = out.firstChild as Element;
 * assert.equal(p.textContent, "Hi <b>Ada</b>"); // text, not markup
 * assert.equal(p.getAttribute("title"), "<b>Ada</b>");
 * assert.equal(tpl.textContent, "Hi {{user.name}}"); // the original is untouched
 * ```
 */
export function render<T extends DocumentFragment | Element>(
  frag: T,
  data: object,
): T extends DocumentFragment | HTMLTemplateElement ? DocumentFragment
  // deno-lint-ignore no-explicit-any
  : HTMLTemplateElement extends T ? any // a wide HTMLElement or Element may be a <template>: either
  : T {
  need(frag, "dfrag");
  need(data, "odata");
  const source = (frag as HTMLTemplateElement).content ?? frag;
  const target = source.nodeType === 11 ? source.cloneNode(true) as DocumentFragment : frag;
  fill(target as never, data);
  return target as never;
}

/**
 * Sets attributes and properties. A string `attrs` is `innerHTML`. Special
 * keys: `className`, `innerHTML`, `parentNode` (node to append to),
 * `children` (a node or array of nodes to append), `styles` (object for
 * `setStyles`); any other key goes through `setAttribute` (`null` or
 * `undefined` removes the attribute). On a fragment, `innerHTML` replaces
 * its children and plain attributes and `className` are ignored.
 *
 * **Security:** a string `attrs` and the `innerHTML` key are parsed as HTML.
 * Pass trusted markup only.
 *
 * @param el the element or fragment
 * @param attrs the attributes, or markup (trusted input only)
 * @param events listeners keyed by event name, as for `listen`
 * @returns `el`
 * @throws {TypeError} when `el` is not an element or fragment, `attrs` or `events` has the wrong type, or a listener is not a function
 * @throws {DOMException} (`InvalidCharacterError`) when an attribute name is invalid
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { setAttrs, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * let clicked = false;
 * const button = setAttrs(doc.createElement("button"), {
 *   type: "submit",
 *   styles: { color: "red" },
 *   children: [doc.createTextNode("Save")],
 * }, { click: () => (clicked = true) });
 * button.click();
 * assert.equal(button.outerHTML, `<button type="submit" style="color: red;">Save</button>`);
 * assert.equal(clicked, true);
 * ```
 */
export function setAttrs<T extends Element | DocumentFragment>(
  el: T,
  attrs?: Attrs | string | null,
  events?: Events | null,
): T {
  need(el, "del");
  if (isStr(attrs)) attrs = { innerHTML: attrs };
  need(attrs, "Oattrs");
  need(events, "Oevents");
  const isFrag = el.nodeType === 11;
  for (const key in attrs) {
    const value = attrs![key];
    if (key === "innerHTML") {
      const html = String(value ?? "");
      if (isFrag) el.replaceChildren(frag(html));
      else (el as HTMLElement).innerHTML = html;
    } else if (key === "parentNode") {
      append(value as Element, el);
    } else if (key === "children") {
      for (const child of [value].flat()) append(el, child as Node);
    } else if (key === "styles") {
      setStyles(el as HTMLElement, value as Attrs["styles"] & object);
    } else if (!isFrag) {
      const name = key === "className" ? "class" : key;
      if (value == null) (el as HTMLElement).removeAttribute(name);
      else (el as HTMLElement).setAttribute(name, value as string);
    }
  }
  for (const type in events) listen(el, type, events[type]);
  return el;
}

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
  useDoc(doc);
  return doc;
}
