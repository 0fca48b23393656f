// Regular tests of the defects a hostile review of Library B found, one per
// defect, each failing on the code before its fix.
import assert from "node:assert/strict";
import {
  addClass,
  args,
  buildQuery,
  byClass,
  clone,
  delClass,
  each,
  frag,
  hasClass,
  merge,
  render,
  set,
  setClass,
} from "../../browser/mod.ts";
import { domTest } from "./_dom.ts";

const SVG = "http://www.w3.org/2000/svg";

domTest("render() leaves the contents of an SVG <script> untouched, as those of an HTML one", ({ doc }) => {
  // an SVG script's tagName is "script", lower case; happy-dom's parser drops its text, so it is built by hand
  const tpl = frag(`<svg></svg>`);
  const script = tpl.firstChild!.appendChild(doc.createElementNS(SVG, "script"));
  script.textContent = `var a = "{{x}}";`;
  const out = render(tpl, { x: `"; steal(); "` });
  assert.equal(out.querySelector("script")?.textContent, `var a = "{{x}}";`);
  const el = doc.createElement("div");
  el.appendChild(doc.createElementNS(SVG, "svg")).appendChild(doc.createElementNS(SVG, "script")).textContent = "{{x}}";
  render(el, { x: "steal()" });
  assert.equal(el.textContent, "{{x}}");
});

Deno.test("clone() and merge() copy a sparse array's items only, so one item at index 4,294,967,294 is quick", () => {
  const list: string[] = [];
  list[5] = "x";
  const copy = clone(list);
  assert.deepEqual(Object.keys(copy), ["5"]); // holes stay holes
  assert.equal(copy.length, 6);
  // an untrusted path makes an array 2^32 - 1 long: walking it by index took hours and gigabytes
  const state = set({ items: [] as unknown[] }, "items.4294967294", 1);
  const started = performance.now();
  for (const out of [clone(state), merge({}, state), merge({ items: [] }, state, { clone: true })]) {
    assert.equal(out.items.length, 4294967295);
    assert.deepEqual(Object.keys(out.items), ["4294967294"]);
  }
  assert.ok(performance.now() - started < 1000);
});

Deno.test("clone() keeps a null-prototype object's null prototype, deep and with merge()'s clone option", () => {
  const dict = Object.assign(Object.create(null), { toString: "plain data", inner: Object.create(null) });
  for (const copy of [clone(dict), clone({ d: dict }).d, merge(dict, {}, { clone: true })]) {
    assert.notEqual(copy, dict);
    assert.equal(Object.getPrototypeOf(copy), null);
    assert.equal(Object.getPrototypeOf(copy.inner), null);
    assert.equal("hasOwnProperty" in copy, false); // a lookup by `in` still finds the data only
    assert.deepEqual({ ...copy }, { toString: "plain data", inner: copy.inner });
  }
  assert.equal(Object.getPrototypeOf(clone({})), Object.prototype);
});

domTest("render() leaves an iframe's srcdoc alone: its value is parsed as a document, so data would be markup", () => {
  const out = render(frag(`<iframe srcdoc="<p>{{x}}</p>" title="{{x}}"></iframe>`), {
    x: `<img src=x onerror="steal()">`,
  });
  const iframe = out.querySelector("iframe")!;
  assert.equal(iframe.getAttribute("srcdoc"), "<p>{{x}}</p>");
  assert.equal(iframe.getAttribute("title"), `<img src=x onerror="steal()">`); // other attributes are filled
});

domTest(
  "class helpers split names on HTML's whitespace only, so a name holding a no-break space is one class",
  ({ doc }) => {
    const el = doc.body.appendChild(doc.createElement("p"));
    setClass(el, "a\u00a0b");
    assert.equal(el.classList.length, 1);
    assert.equal(hasClass(el, "a\u00a0b"), true);
    assert.equal(byClass("a\u00a0b").length, 1);
    addClass(el, "x\u2003y \t\n\f\rz");
    assert.deepEqual([...el.classList], ["a\u00a0b", "x\u2003y", "z"]);
    assert.equal(hasClass(el, "x"), false);
    delClass(el, "a\u00a0b x\u2003y");
    assert.equal(el.className, "z");
  },
);

domTest("render() takes linear time on text with an unclosed {{ before many spaces or many {{", ({ doc }) => {
  // the placeholder pattern backtracked in cubic time: 5,000 spaces after "{{" took 27 s
  const el = doc.createElement("div");
  el.title = "{{" + " ".repeat(2000) + "x";
  el.append("{{" + " ".repeat(2000) + "x", "{{".repeat(50_000));
  const started = performance.now();
  render(el, { x: 1 });
  assert.ok(performance.now() - started < 1000, `${performance.now() - started} ms`);
  assert.equal(el.textContent, "{{" + " ".repeat(2000) + "x" + "{{".repeat(50_000));
  // placeholders as before; braces around one stay text
  assert.equal(render(frag("<p>{{x}}|{{ x }}|{{\n x\t}}|{{{x}}}|{{missing}}</p>"), { x: 1 }).textContent, "1|1|1|{1}|");
});

Deno.test("buildQuery() takes an array's own items, so one item at index 4,294,967,294 is quick", () => {
  // [value].flat() walked every index of an array 2^32 - 1 long: 85 s
  const state = set({ ids: [] as unknown[] }, "ids.4294967294", 1);
  const started = performance.now();
  assert.equal(buildQuery(state), "ids=1");
  assert.ok(performance.now() - started < 1000, `${performance.now() - started} ms`);
  const sparse = [1, , 3];
  assert.equal(buildQuery({ a: sparse, b: "x".match(/x/) }), "a=1&a=3&b=x"); // holes, and a match's index and input, left out
});

Deno.test("each() walks an array or array-like longer than 1e7 by its own index keys: one item at 4e9 is one call", () => {
  const walk = (obj: ArrayLike<unknown>) => {
    const seen: unknown[] = [];
    each(obj, (v, i) => {
      // by index, the holes came first: 2^32 - 1 calls
      if (seen.push([i, v]) > 10) throw new Error(`walked the holes: ${JSON.stringify(seen)}`);
    });
    return seen;
  };
  const long = Object.assign(set({ ids: [] as unknown[] }, "ids.4294967294", "z").ids, { 5: "a", extra: "no" });
  assert.deepEqual(walk(long), [[5, "a"], [4294967294, "z"]]); // numbers, ascending; a non-index key left out
  assert.deepEqual(
    walk({ 3999999999: "b", 0: "a", length: 4e9, 4e9: "past", "-1": "no", "01": "no" } as ArrayLike<unknown>),
    [
      [0, "a"],
      [3999999999, "b"],
    ],
  );
  // up to 1e7 long: by index, holes visited as before
  assert.deepEqual(walk([1, , 3]), [[0, 1], [1, undefined], [2, 3]]);
});

Deno.test("args() throws a RangeError naming the length of an array-like longer than 1e7", () => {
  // Array.from filled every slot: 4e9 of them
  for (const length of [1e7 + 1, 4e9]) {
    assert.throws(() => args({ length }), {
      name: "RangeError",
      message: `Expected 'args.length' to be at most 1e7, got ${length}`,
    });
  }
  assert.equal(args({ length: 1e7 }).length, 1e7);
});

domTest("render() leaves <style> contents alone, as <script>'s: data there would become CSS", ({ doc }) => {
  const data = { c: "red} body{background:url(//x)}", w: 5 };
  const out = render(frag(`<style>p { color: {{c}} }</style><p style="width: {{w}}px">{{c}}</p>`), data);
  assert.equal(out.querySelector("style")?.textContent, "p { color: {{c}} }");
  assert.equal(out.querySelector("p")?.getAttribute("style"), "width: 5px"); // the style attribute is filled
  assert.equal(out.querySelector("p")?.textContent, data.c); // text elsewhere too
  const el = doc.createElement("div");
  el.appendChild(doc.createElementNS(SVG, "svg")).appendChild(doc.createElementNS(SVG, "style")).textContent = "{{c}}";
  render(el, data);
  assert.equal(el.textContent, "{{c}}");
});
