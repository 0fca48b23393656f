import assert from "node:assert/strict";
import {
  getOffset,
  getScroll,
  getStyle,
  getVendorPrefix,
  resolvePrefix,
  resolveProperty,
  setDoc,
  setStyle,
  setStyles,
} from "../../browser/mod.ts";
import { domTest } from "./_dom.ts";

/** A style object that counts `in` checks and knows `props` only. */
function countingStyle(props: string[]): { style: CSSStyleDeclaration; checks: () => number } {
  let checks = 0;
  const known = new Set(props);
  const style = new Proxy({ setProperty() {} }, {
    has(_, key) {
      if (key !== "style") checks++; // "style" in obj tells an element from a style object
      return known.has(String(key));
    },
  }) as unknown as CSSStyleDeclaration;
  return { style, checks: () => checks };
}

domTest("getOffset() returns x and y, and rejects a non-element", ({ doc }) => {
  const el = doc.body.appendChild(doc.createElement("div"));
  assert.deepEqual(getOffset(el), { x: 0, y: 0 }); // real layout is tested in Chromium
  assert.throws(() => getOffset(doc as never), { name: "TypeError", message: /'el' to be an element/ });
});

domTest("getScroll() returns the window's vertical scroll as an integer", () => {
  assert.equal(getScroll(), 0);
  assert.equal(Number.isInteger(getScroll()), true);
});

domTest("getStyle() reads computed values from style sheets and inline styles", ({ doc }) => {
  const p = doc.getElementById("p")!;
  assert.equal(getStyle(p, "color"), "red");
  assert.equal(getStyle(p, "marginLeft"), "3px");
  p.style.color = "blue";
  assert.equal(getStyle(p, "color"), "blue");
  p.style.setProperty("--gap", "4px");
  assert.equal(getStyle(p, "--gap").trim(), "4px");
}, `<style>#p { color: red; margin-left: 3px }</style><p id="p">x</p>`);

domTest("getStyle() gives def, or an empty string, when the property has no value", ({ doc }) => {
  const p = doc.body.appendChild(doc.createElement("p"));
  assert.equal(getStyle(p, "notAProperty", "fallback"), "fallback");
  assert.equal(getStyle(p, "notAProperty"), "");
  assert.equal(getStyle(p, "--unset", "none"), "none");
  assert.equal(getStyle(p, "length", "none"), "none"); // not a property value
  assert.equal(getStyle(p, "getPropertyValue", "none"), "none");
});

domTest("getStyle() rejects bad arguments with a TypeError", ({ doc }) => {
  assert.throws(() => getStyle("p" as never, "color"), {
    name: "TypeError",
    message: `Expected 'obj' to be an element, got "p"`,
  });
  assert.throws(() => getStyle(doc.body, 5 as never), { name: "TypeError", message: /'style'/ });
});

domTest("setStyle() appends px to numbers except unitless properties", ({ doc }) => {
  const el = doc.createElement("div");
  setStyle(el, "width", 12);
  setStyle(el, "marginTop", -1.5);
  setStyle(el, "opacity", 0.25);
  setStyle(el, "zIndex", 3);
  setStyle(el, "lineHeight", 1.5);
  setStyle(el, "height", "50%");
  setStyle(el, "padding-left", 2);
  assert.equal(el.style.width, "12px");
  assert.equal(el.style.marginTop, "-1.5px");
  assert.equal(el.style.opacity, "0.25");
  assert.equal(el.style.zIndex, "3");
  assert.equal(el.style.lineHeight, "1.5");
  assert.equal(el.style.height, "50%");
  assert.equal(el.style.paddingLeft, "2px");
});

domTest(
  "setStyle() gives a number no px on every property CSS reads as unitless, camelCase or dash-case",
  ({ doc }) => {
    const el = doc.createElement("div");
    const ref = doc.createElement("div");
    const unitless =
      ("opacity fillOpacity strokeOpacity floodOpacity zIndex order flex flexGrow flexShrink fontWeight " +
        "lineHeight lineClamp gridRow gridColumn gridRowStart gridRowEnd gridColumnStart gridColumnEnd gridArea " +
        "columnCount zoom animationIterationCount tabSize widows orphans scale aspectRatio strokeMiterlimit " +
        "fontSizeAdjust shapeImageThreshold mathDepth initialLetter hyphenateLimitChars readingOrder " +
        "borderImageSlice borderImageWidth borderImageOutset")
        .split(" ");
    // Lengths keep px, those whose names end as a unitless one's too; so do columns and the SVG lengths, where a
    // bare number means what px does (or, in columns, a count in place of a width).
    const lengths =
      ("width height maxHeight blockSize fontSize gap rowGap columnGap gridRowGap gridColumnGap columnWidth " +
        "flexBasis gridAutoRows gridAutoColumns gridTemplateRows gridTemplateColumns borderWidth outlineOffset " +
        "textIndent strokeWidth border borderTopWidth columnRuleWidth inset insetBlockStart letterSpacing " +
        "perspective columns strokeDashoffset").split(" ");
    const wrong = [];
    for (const name of [...unitless, ...lengths]) {
      const dashed = name.replace(/[A-Z]/g, "-$&").toLowerCase();
      // What the style object makes of "2" or "2px" (happy-dom writes flex: 2 as "2 1 0%").
      ref.removeAttribute("style");
      ref.style.setProperty(dashed, unitless.includes(name) ? "2" : "2px");
      const want = ref.style.getPropertyValue(dashed);
      assert.notEqual(want, "", name);
      for (const given of [name, dashed]) {
        el.removeAttribute("style");
        setStyle(el, given, 2);
        const got = el.style.getPropertyValue(dashed);
        if (got !== want) wrong.push(`${given}: ${got || "(dropped)"}, not ${want}`);
      }
    }
    assert.deepEqual(wrong, []);
    // Custom properties keep px, whatever their names end with.
    for (const custom of ["--item-count", "--zoom", "--order"]) {
      setStyle(el, custom, 3);
      assert.equal(el.style.getPropertyValue(custom), "3px", custom);
    }
  },
);

domTest("setStyle() sets custom properties and removes a property given null", ({ doc }) => {
  const el = doc.createElement("div");
  setStyle(el, "--accent", "teal");
  setStyle(el, "--mainColor", "red", true); // case kept, never prefixed
  assert.equal(el.style.getPropertyValue("--accent"), "teal");
  assert.equal(el.style.getPropertyValue("--mainColor"), "red");
  assert.equal(el.style.getPropertyValue("--main-color"), "");
  setStyle(el, "color", "red");
  setStyle(el, "color", null);
  assert.equal(el.style.color, "");
  setStyle(el.style, "color", "green"); // a style object works too
  assert.equal(el.style.color, "green");
});

domTest("setStyle() with resolve uses the prefixed name the style object knows", ({ doc }) => {
  const set: string[] = [];
  const style = new Proxy({}, {
    has: (_, key) => key === "WebkitBoxReflect",
    get: (_, key) => key === "setProperty" ? (name: string, value: string) => set.push(`${name}=${value}`) : undefined,
  }) as CSSStyleDeclaration;
  setStyle({ style } as never, "boxReflect", "below", true);
  setStyle({ style } as never, "boxReflect", "above");
  assert.deepEqual(set, ["-webkit-box-reflect=below", "box-reflect=above"]);
  const el = doc.createElement("div");
  setStyle(el, "color", "red", true); // no prefix needed
  assert.equal(el.style.color, "red");
});

domTest("setStyle() rejects bad arguments with a TypeError", ({ doc }) => {
  const el = doc.createElement("div");
  assert.throws(() => setStyle(null as never, "color", "red"), {
    name: "TypeError",
    message: "Expected 'obj' to be an element or a style object, got null",
  });
  assert.throws(() => setStyle(el, 1 as never, "red"), { name: "TypeError", message: /'style'/ });
  assert.throws(() => setStyle(el, "width", NaN), {
    name: "TypeError",
    message: "Expected 'val' to be a string or a finite number, got NaN",
  });
  assert.throws(() => setStyle(el, "width", Infinity), { name: "TypeError" });
  assert.throws(() => setStyle(el, "width", {} as never), { name: "TypeError", message: /'val'/ });
  assert.equal(el.getAttribute("style"), null);
});

domTest("setStyles() sets several properties", ({ doc }) => {
  const el = doc.createElement("div");
  setStyles(el, { width: 5, color: "red", opacity: 1 });
  assert.equal(el.style.width, "5px");
  assert.equal(el.style.color, "red");
  assert.equal(el.style.opacity, "1");
  assert.throws(() => setStyles(el, "color: red" as never), { name: "TypeError", message: /'styles'/ });
});

domTest("resolvePrefix() returns the prop when supported unprefixed, else the prefixed name", () => {
  const { style } = countingStyle(["transform", "WebkitTransform", "WebkitBoxReflect", "MozAppearance"]);
  assert.equal(resolvePrefix("transform", style), "transform");
  assert.equal(resolvePrefix("boxReflect", style), "WebkitBoxReflect");
  assert.equal(resolvePrefix("boxReflect", style, true), "webkitBoxReflect");
  assert.equal(resolvePrefix("appearance", style), "MozAppearance");
  assert.equal(resolvePrefix("appearance", style, true), "mozAppearance");
  assert.equal(resolvePrefix("unknownThing", style), "unknownThing");
  assert.equal(resolvePrefix("box-reflect", { style } as never), "WebkitBoxReflect"); // an element works, and dash-case
});

domTest("resolvePrefix() caches per style object", () => {
  const { style, checks } = countingStyle(["WebkitBoxReflect"]);
  assert.equal(resolvePrefix("boxReflect", style), "WebkitBoxReflect");
  const after = checks();
  assert.equal(after > 0, true);
  assert.equal(resolvePrefix("boxReflect", style, true), "webkitBoxReflect");
  assert.equal(checks(), after);
  const other = countingStyle(["boxReflect"]);
  assert.equal(resolvePrefix("boxReflect", other.style), "boxReflect"); // another object: probed afresh
});

domTest("getVendorPrefix() and resolveProperty() probe the document's root style and cache it", ({ doc }) => {
  const { style, checks } = countingStyle(["WebkitBoxReflect", "transform", "WebkitTransform", "color"]);
  setDoc({ nodeType: 9, documentElement: { style }, defaultView: null } as never);
  try {
    assert.equal(getVendorPrefix("boxReflect"), "Webkit");
    assert.equal(getVendorPrefix("boxReflect", true), "-webkit-");
    assert.equal(getVendorPrefix("transform"), "Webkit"); // the browser's prefix, even when unprefixed works
    assert.equal(getVendorPrefix("color"), "");
    assert.equal(getVendorPrefix("color", true), "");
    const after = checks();
    assert.equal(resolveProperty("box-reflect"), "-webkit-box-reflect");
    assert.equal(resolveProperty("transform"), "transform");
    assert.equal(resolveProperty("color"), "color");
    assert.equal(checks(), after); // all answered from the cache
  } finally {
    setDoc(doc);
  }
});

domTest("vendor prefix helpers reject a non-string prop with a TypeError", ({ doc }) => {
  assert.throws(() => getVendorPrefix(1 as never), {
    name: "TypeError",
    message: "Expected 'prop' to be a string, got 1",
  });
  assert.throws(() => resolveProperty(null as never), { name: "TypeError", message: /'prop'/ });
  assert.throws(() => resolvePrefix("x", 5 as never), { name: "TypeError", message: /'obj'/ });
  assert.equal(resolvePrefix("color", doc.body), "color");
});

domTest("setStyle() appends px to numeric strings too, but not to other strings or unitless properties", ({ doc }) => {
  const el = doc.createElement("div");
  setStyle(el, "width", "12");
  setStyle(el, "height", "2.5");
  setStyle(el, "marginLeft", "-3");
  setStyle(el, "paddingTop", "1em");
  setStyle(el, "zIndex", "4");
  assert.equal(el.style.width, "12px");
  assert.equal(el.style.height, "2.5px");
  assert.equal(el.style.marginLeft, "-3px");
  assert.equal(el.style.paddingTop, "1em");
  assert.equal(el.style.zIndex, "4");
  setStyle(el, "width", "");
  assert.equal(el.style.width, "");
});

domTest("getStyle() reads an inline style of an element not in the document", ({ doc }) => {
  // detached elements have no computed style (Chromium and happy-dom give ""), but a style set on them is set
  const el = doc.createElement("div");
  setStyle(el, "color", "red");
  setStyle(el, "marginTop", 4);
  assert.equal(getStyle(el, "color", "none"), "red");
  assert.equal(getStyle(el, "marginTop"), "4px");
  assert.equal(getStyle(el, "width", "auto"), "auto");
});

domTest("resolvePrefix() tests against any object given, such as a plain object or the window", ({ win }) => {
  assert.equal(resolvePrefix("boxReflect", { WebkitBoxReflect: "" } as never), "WebkitBoxReflect");
  assert.equal(resolvePrefix("boxReflect", { WebkitBoxReflect: "" } as never, true), "webkitBoxReflect");
  // DOM objects carry lower-case prefixes (document.webkitHidden): found too, named as asked
  assert.equal(resolvePrefix("hidden", { webkitHidden: false } as never, true), "webkitHidden");
  assert.equal(
    resolvePrefix("requestAnimationFrame", { mozRequestAnimationFrame() {} } as never, true),
    "mozRequestAnimationFrame",
  );
  assert.equal(resolvePrefix("boxReflect", { webkitBoxReflect: "" } as never), "WebkitBoxReflect");
  assert.equal(resolvePrefix("requestAnimationFrame", win as never, true), "requestAnimationFrame");
  assert.throws(() => resolvePrefix("x", "style" as never), { name: "TypeError", message: /'obj'/ });
});
