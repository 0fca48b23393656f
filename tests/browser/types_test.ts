// Typed call patterns a caller (or an acceptance test) plausibly writes: this
// file fails type-checking, and so `deno test`, if the signatures turn too
// narrow again. Each test also checks the values at run time.
import assert from "node:assert/strict";
import {
  adj,
  buildQuery,
  byClass,
  bySelector,
  bySelectorAll,
  byTag,
  create,
  each,
  frag,
  get,
  listen,
  merge,
  parent,
  render,
  request,
  set,
  setAttrs,
  setStyle,
} from "../../browser/mod.ts";
import { domTest } from "./_dom.ts";

domTest("lookups give HTML elements, parent() any node, without casts", ({ doc }) => {
  const a = bySelector("#a")!;
  a.click(); // HTMLElement, not just Element
  assert.equal(byClass("k")[0].style.color, "");
  assert.equal(bySelectorAll("p, span").map((el) => el.dataset.n).join(), "1,2");
  assert.equal(byTag("span")[0].title, "t");
  assert.equal(parent(a)?.id, "box");
  assert.equal(parent(doc.documentElement) === doc, true);
}, `<div id="box"><p id="a" class="k" data-n="1"></p><span title="t" data-n="2"></span></div>`);

domTest("setAttrs(), setStyle() and render() take an Element from bySelector<Element>()", ({ doc }) => {
  doc.body.innerHTML = `<p>{{x}}</p><template id="t"><i>{{x}}</i></template>`;
  const p = bySelector<Element>("p")!;
  setAttrs(p, { title: "hi" });
  setStyle(p, "width", 3);
  assert.equal(render(p, { x: 1 }).outerHTML, `<p title="hi" style="width: 3px;">1</p>`);
  const out = render(bySelector<Element>("#t")!, { x: 2 }) as DocumentFragment; // a wide type: either
  assert.equal(out.textContent, "2");
  assert.equal(render(doc.createElement("div"), {}).innerHTML, ""); // a specific element type stays
  assert.equal(render(frag("<b>{{x}}</b>"), { x: 3 }).querySelector("b")?.textContent, "3");
});

domTest("adj() takes the position as a plain string", ({ doc }) => {
  const host = doc.body.appendChild(doc.createElement("div"));
  for (const where of ["before", "front", "back", "after"]) adj(host, `<i>${where}</i>`, where);
  assert.equal(doc.body.textContent, "beforefrontbackafter");
});

domTest("listeners may take a specific event type", ({ event }) => {
  const seen: string[] = [];
  const button = create("button", {}, { click: (e: MouseEvent) => seen.push("create " + e.type) });
  listen(button, "click", (e: MouseEvent) => seen.push("listen " + e.button));
  button.dispatchEvent(event("click", {}, true));
  assert.deepEqual(seen, ["create click", "listen 0"]);
});

Deno.test("merge(), get() and set() results are usable without casts", () => {
  const merged = merge({ a: 1 }, { b: 2 });
  assert.equal(merged.a + merged.b, 3);
  const list: number[] = get({ a: { list: [1, 2] } }, "a.list");
  assert.equal(list.length, 2);
  const made = set({}, "a.b", 1);
  assert.equal(made.a.b, 1);
});

Deno.test("each() callbacks may annotate index, key and collection; buildQuery() takes an interface", () => {
  const seen: unknown[] = [];
  each([10, 20], (v: number, i: number, all: number[]) => seen.push(v + i + all.length));
  interface Point {
    x: number;
    y: number;
  }
  const point: Point = { x: 1, y: 2 };
  each(point, (v: number, key: string) => seen.push(key + v));
  assert.deepEqual(seen, [12, 23, "x1", "y2"]);
  assert.equal(buildQuery(point), "x=1&y=2");
});

domTest("request() callbacks may type the response", ({ win }) => {
  const xhr = request("http://127.0.0.1:9/never", (_err: Error | null, body: { ok: boolean } | null) => body?.ok);
  assert.equal(xhr instanceof win.XMLHttpRequest, true);
  xhr.abort();
});
