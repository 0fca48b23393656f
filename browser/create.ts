/**
 * Making nodes: `create` (an element with attributes and listeners), `frag`
 * (a fragment from markup or a node), `render` (fill `{{ path }}`
 * placeholders from data) and `setAttrs`.
 *
 * @module
 */

import { getDoc, need } from "./_doc.ts";
import { append, type Attrs, type Events } from "./dom.ts";
import { listen } from "./events.ts";
import { isStr } from "./is.ts";
import { get } from "./path.ts";
import { setStyles } from "./style.ts";

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

// no brace inside, spaces trimmed after: linear time ("\s*(.*?)\s*" backtracked in cubic time on "{{" and spaces)
const PLACEHOLDER = /{{([^{}]*)}}/g;

function fill(el: Element & Text, data: object): void {
  const sub = (text: string) =>
    text.replace(PLACEHOLDER, (_, path: string) => (get(data, path.trim()) ?? "") as string); // replace() makes it a string
  if (el.nodeType === 3) el.data = sub(el.data);
  // never turn data into code or CSS: an SVG script's or style's tagName is lower case
  else if (!/^s(cript|tyle)$/.test(el.localName)) {
    for (const attr of [...el.attributes ?? []]) {
      // on* holds code, srcdoc a document's markup: data in them would run
      if (attr.value.includes("{{") && !/^(on|srcdoc)/i.test(attr.name)) attr.value = sub(attr.value);
    }
    for (const child of [...el.childNodes]) fill(child as Element & Text, data);
  }
}

/**
 * Renders data into `{{path}}` placeholders (spaces allowed: `{{ a.b }}`;
 * a path holds no `{` or `}`) in text nodes and attribute values, each replaced with
 * `get(data, path, "")`. Data is inserted as text, never parsed as markup;
 * `<script>` and `<style>` elements (contents and attributes: data there
 * would be code or CSS, `red} body{background:url(//x)}`), `on*` attributes
 * and `srcdoc` are left alone;
 * a `style` attribute is filled (`style="width: {{w}}px"`). A fragment (or a
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
