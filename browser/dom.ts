/**
 * DOM: `addScript`, `adj`, `append`, `replace`, `remove`, and `setDoc`,
 * which sets the document the library uses outside a browser; the types of
 * attributes and listeners. Making nodes is in `create.ts`, the class
 * helpers in `classes.ts`.
 *
 * @module
 */

import { fail, getDoc, need } from "./_doc.ts";
import { listen } from "./events.ts";

// setDoc lives with the document it sets (one assignment, no call)
export { setDoc } from "./_doc.ts";

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
      (WHERE[i % 2 * 3] + (i < 2 ? "begin" : "end")) as InsertPosition, // even: before, odd: after
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
