/**
 * Position and style: `getOffset`, `getScroll`, `getStyle`, `setStyle`,
 * `setStyles`, and vendor prefixes (`getVendorPrefix`, `resolvePrefix`,
 * `resolveProperty`), which are probed on a real style object and cached per
 * style object.
 *
 * @module
 */

import { fail, getDoc, getWin, need } from "./_doc.ts";
import { isStr } from "./is.ts";
import { capitalize } from "./string.ts";

/** A position in CSS pixels. */
export interface Offset {
  /** Distance from the left edge of the document. */
  x: number;
  /** Distance from the top edge of the document. */
  y: number;
}

/** Something with an inline style: an element, or a `CSSStyleDeclaration`. */
export type Styled = Element | ElementCSSInlineStyle | CSSStyleDeclaration;

const PREFIXES = ["Webkit", "Moz"];
// style object -> camelCase property -> [prefix found, unprefixed supported]
const cache: WeakMap<object, Record<string, [string, boolean]>> = /* @__PURE__ */ new WeakMap();
// The camelCase names a number is unitless in: those CSS takes a bare <number> and no length in, and those that read a
// bare number as a multiple or count, not px: lineHeight, borderImageWidth/Outset, tabSize, flex. Matched by their
// shortest endings (lowercase, in the order that gzips smallest) that no property taking a length has, checked against
// all of Chromium's (tests/browser/chromium_style_test.ts): opacity and kin (ity), strokeMiterlimit (it), zIndex, flex
// (ex), order, readingOrder, WebkitOrder ((^|[gt])order: not border), flexGrow, gridRow (ow), gridColumn (mn), gridArea
// (ea), the grid lines (ow or mn, then start or end: not rowGap, gridAutoRows...), flexShrink (nk), fontWeight,
// lineHeight, lineClamp (mp), columnCount, animationIterationCount (unt), zoom, tabSize, widows, orphans,
// hyphenateLimitChars (a[nr]s), scale (ale), aspectRatio (io), fontSizeAdjust (st), shapeImageThreshold (ld), mathDepth
// (pth), initialLetter (tter), borderImageSlice (ice), borderImageWidth (gewidth), borderImageOutset (tset),
// WebkitBoxOrdinalGroup (up), and vendor forms. Kept px though a number is valid: SVG lengths (strokeWidth, r, x...),
// baselineShift, WebkitPerspective (px anyway); columns (a count, not a width); the shorthands animation and
// borderImage; counterReset and kin (a number only after a name). A custom property (-X once camelCased) never.
const UNITLESS =
  /^\w*(bsize|weight|ice|(ow|mn|ea)(start|end)?|gewidth|eheight|ity?|dows|up|tter|ale|(^|[gt])order|a[nr]s|unt|pth|ex|mp|tset|oom|st|io|ld|nk)$/i;

function camel(prop: string): string {
  return prop.replace(/-[a-z]/g, (c) => c[1].toUpperCase());
}

// CSS name of a property: WebkitBoxReflect -> -webkit-box-reflect; custom --props are case-sensitive: as given
function dash(prop: string): string {
  return prop.startsWith("--") ? prop : prop.replace(/[A-Z]/g, "-$&").toLowerCase();
}

function probe(prop: string, obj?: object | null): [string, boolean] {
  need(prop, "sprop");
  // an element: its style object; any other object (a style object, the window...): itself
  const style = ((obj ?? getDoc().documentElement) as ElementCSSInlineStyle).style ?? obj;
  need(style, "oobj");
  prop = camel(prop);
  // no prototype: a property named __proto__ or constructor is probed like any other
  const known = cache.get(style) ?? cache.set(style, { __proto__: null } as never).get(style)!;
  // WebkitX on style objects (Chromium, Safari and Firefox all have it), webkitX on others (document.webkitHidden)
  return known[prop] ??= [
    PREFIXES.find((p) => p + capitalize(prop) in style || p.toLowerCase() + capitalize(prop) in style) ?? "",
    prop in style,
  ];
}

/**
 * Offset position of the element: its border box's top-left corner relative
 * to the document (viewport position plus the window's scroll).
 *
 * @param el the element
 * @returns `{ x, y }` in CSS pixels
 * @throws {TypeError} when `el` is not an element
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { getOffset, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const box = doc.body.appendChild(doc.createElement("div"));
 * assert.deepStrictEqual(getOffset(box), { x: 0, y: 0 }); // happy-dom has no layout
 * ```
 */
export function getOffset(el: Element): Offset {
  need(el, "eel");
  const rect = el.getBoundingClientRect();
  const win = getWin();
  return { x: rect.left + win.scrollX, y: rect.top + win.scrollY };
}

/**
 * Vertical scroll position of the window.
 *
 * @returns the scroll position in whole CSS pixels, fractions dropped (0 without a window)
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { getScroll, setDoc } from "./mod.ts";
 * setDoc(new Window().document as unknown as Document);
 * assert.equal(getScroll(), 0);
 * ```
 */
export function getScroll(): number {
  return getWin().scrollY | 0;
}

/**
 * Computed value of a CSS property, or `def` when it is not set (empty).
 * An element outside the document has no computed style: its inline style
 * is read instead.
 *
 * @param obj the element
 * @param style the property, camelCase (`backgroundColor`; `float`, not `cssFloat`); dash-case and custom properties (`--x`) work too
 * @param def returned when the property has no value (default `""`)
 * @returns the computed value (the inline one for an element outside the document), or `def`
 * @throws {TypeError} when `obj` is not an element or `style` is not a string
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { getStyle, setDoc } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const p = doc.body.appendChild(doc.createElement("p"));
 * p.style.color = "red";
 * assert.equal(getStyle(p, "color"), "red");
 * assert.equal(getStyle(p, "noSuchProperty", "none"), "none");
 * ```
 */
export function getStyle(obj: Element, style: string, def = ""): string {
  need(obj, "eobj");
  need(style, "sstyle");
  style = dash(style);
  // a detached element has no computed style: its inline one is the value set
  return getWin().getComputedStyle(obj).getPropertyValue(style) ||
    (obj as HTMLElement).style?.getPropertyValue(style) ||
    def;
}

/**
 * Sets one inline CSS property. `px` is appended to numeric values (`4` or
 * `"4"`), except for the properties CSS reads as unitless (`opacity` and the
 * other opacities, `zIndex`, `order`, `flex`, `flexGrow`, `flexShrink`,
 * `fontWeight`, `lineHeight`, `lineClamp`, `gridRow`, `gridColumn`,
 * `gridRowStart`, `gridRowEnd`, `gridColumnStart`, `gridColumnEnd`,
 * `gridArea`, `columnCount`, `zoom`, `animationIterationCount`, `tabSize`,
 * `widows`, `orphans`, `scale`, `aspectRatio`, `strokeMiterlimit`,
 * `fontSizeAdjust`, `shapeImageThreshold`, `mathDepth`, `initialLetter`,
 * `hyphenateLimitChars`, `readingOrder`, `borderImageSlice`,
 * `borderImageWidth`, `borderImageOutset`); custom properties always get it,
 * and so do `columns` and the SVG lengths (`strokeWidth`...). Other strings
 * are set as they are. `null`, `undefined` or `""` removes the property.
 *
 * @param obj the element (or its `style` object)
 * @param style the property, camelCase (`float`, not `cssFloat`); dash-case and custom properties (`--x`, case kept) work too
 * @param val the value
 * @param resolve use the browser's vendor-prefixed name when needed (default `false`)
 * @throws {TypeError} when `obj` has no style, `style` is not a string, or `val` is not a string or finite number
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { setDoc, setStyle } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const box = doc.createElement("div");
 * setStyle(box, "marginTop", 4);
 * setStyle(box, "opacity", 0.5);
 * setStyle(box, "width", "12");
 * assert.equal(box.style.marginTop, "4px");
 * assert.equal(box.style.width, "12px");
 * assert.equal(box.style.opacity, "0.5");
 * ```
 */
export function setStyle(
  obj: Styled,
  style: string,
  val: string | number | null | undefined,
  resolve = false,
): void {
  // an element: its style object; a style object: itself
  const target = ((obj as ElementCSSInlineStyle)?.style ?? obj) as CSSStyleDeclaration;
  need(target, "yobj");
  need(style, "sstyle");
  val ??= "";
  if (!(isStr(val) || Number.isFinite(val))) {
    fail("val", "a string or a finite number", val);
  }
  // A number, or a string holding one ("12", not "" nor "12em"), gets px.
  if (val !== "" && isFinite(val as number) && !UNITLESS.test(camel(style))) val += "px";
  target.setProperty(dash(resolve && !style.startsWith("--") ? resolvePrefix(style, target) : style), val as string);
}

/**
 * Sets several inline CSS properties, each as {@linkcode setStyle}.
 *
 * @param obj the element (or its `style` object)
 * @param styles camelCase property names and their values
 * @param resolve use vendor-prefixed names when needed (default `false`)
 * @throws {TypeError} when `styles` is not an object, or as {@linkcode setStyle}
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { setDoc, setStyles } from "./mod.ts";
 * const doc = setDoc(new Window().document as unknown as Document);
 * const box = doc.createElement("div");
 * setStyles(box, { width: 10, color: "blue" });
 * assert.equal(box.getAttribute("style"), "width: 10px; color: blue;");
 * ```
 */
export function setStyles(
  obj: Styled,
  styles: Record<string, string | number | null | undefined>,
  resolve = false,
): void {
  need(styles, "ostyles");
  for (const key in styles) {
    setStyle(obj, key, styles[key], resolve);
  }
}

/**
 * Vendor prefix of the current browser, found by probing `prop` on a real
 * style object: the prefix under which the browser offers `prop` (`Webkit`
 * or `Moz`), or `""` when it has no prefixed form of it. Results
 * are cached.
 *
 * @param prop the property to probe, camelCase or dash-case
 * @param forCss return the CSS form (`-webkit-`) instead of the DOM form (`Webkit`)
 * @returns the prefix, or `""`
 * @throws {TypeError} when `prop` is not a string
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { getVendorPrefix, setDoc } from "./mod.ts";
 * setDoc(new Window().document as unknown as Document);
 * assert.equal(getVendorPrefix("color", true), ""); // nobody prefixes color
 * ```
 */
export function getVendorPrefix(prop: string, forCss = false): string {
  const prefix = probe(prop)[0];
  return forCss && prefix ? dash(prefix) + "-" : prefix; // Webkit: -webkit-
}

/**
 * Vendor-prefixed property name for this browser: `prop` itself when the
 * browser supports it unprefixed (or not at all), otherwise the prefixed
 * name (`WebkitBoxReflect`, or `webkitBoxReflect` with `lower`). A prefixed
 * name counts in either case (`WebkitX` on style objects, `webkitX` on
 * objects such as `document`); `lower` alone decides the case returned.
 *
 * @param prop the property, camelCase
 * @param obj object to test against: an element (its style object is used), a style object, or any other
 *   object such as the window (default: the document's root element)
 * @param lower camelCase instead of CapitalCase (default `false`)
 * @returns the name to use
 * @throws {TypeError} when `prop` is not a string or `obj` is not an object
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolvePrefix } from "./mod.ts";
 * // a style object that knows the property only with a prefix
 * const style = { WebkitBoxReflect: "", setProperty() {} } as unknown as CSSStyleDeclaration;
 * assert.equal(resolvePrefix("boxReflect", style), "WebkitBoxReflect");
 * assert.equal(resolvePrefix("boxReflect", style, true), "webkitBoxReflect");
 * ```
 */
export function resolvePrefix(
  prop: string,
  obj?: Styled | object | null,
  lower = false,
): string {
  const [prefix, plain] = probe(prop, obj);
  prop = camel(prop);
  if (plain || !prefix) return prop;
  return (lower ? prefix.toLowerCase() : prefix) + capitalize(prop);
}

/**
 * Vendor-prefixed CSS property name for this browser: `prop` itself when
 * the browser supports it unprefixed (or not at all), else with the CSS
 * prefix (`-webkit-box-reflect`).
 *
 * @param prop the property, dash-case
 * @returns the name to use in CSS text or `setProperty`
 * @throws {TypeError} when `prop` is not a string
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Window } from "happy-dom";
 * import { resolveProperty, setDoc } from "./mod.ts";
 * setDoc(new Window().document as unknown as Document);
 * assert.equal(resolveProperty("background-color"), "background-color");
 * ```
 */
export function resolveProperty(prop: string): string {
  return probe(prop)[1] ? prop : getVendorPrefix(prop, true) + prop;
}
