import assert from "node:assert/strict";
import { byClass, byId, byName, bySelector, bySelectorAll, byTag, frag, parent } from "../../browser/mod.ts";
import { domTest, ids } from "./_dom.ts";

const PAGE = `
<form id="f" name="signup">
  <div id="row" class="row wide">
    <input id="email" name="email" class="field">
    <input id="email2" name="email" class="field wide">
  </div>
</form>
<p id="p1" class="note"><b id="b1" class="row">x</b></p>`;

domTest("byId() finds an element by id, or null", () => {
  assert.equal(byId("email")?.tagName, "INPUT");
  assert.equal(byId("nope"), null);
  assert.throws(() => byId(1 as never), { name: "TypeError", message: "Expected 'id' to be a string, got 1" });
}, PAGE);

domTest("byName() finds the first element with the name, or null", () => {
  assert.equal(byName("email")?.id, "email");
  assert.equal(byName("signup")?.id, "f");
  assert.equal(byName("nope"), null);
  assert.throws(() => byName(null as never), { name: "TypeError", message: /'name'/ });
}, PAGE);

domTest("byClass() returns an array of elements having every listed class", () => {
  const rows = byClass("row");
  assert.equal(Array.isArray(rows), true);
  assert.deepEqual(ids(rows), ["row", "b1"]);
  assert.deepEqual(ids(byClass("wide  row")), ["row"]);
  assert.deepEqual(ids(byClass("field", byId("row"))), ["email", "email2"]);
  assert.deepEqual(byClass("missing"), []);
  assert.deepEqual(byClass(" "), []);
}, PAGE);

domTest("byClass() searches a fragment too", () => {
  const f = frag(`<i id="a" class="x y"></i><i id="b" class="x"></i>`);
  assert.deepEqual(ids(byClass("x y", f)), ["a"]);
});

domTest("byTag() returns an array of the tag's elements, empty when none", () => {
  assert.deepEqual(ids(byTag("input")), ["email", "email2"]);
  assert.deepEqual(ids(byTag("INPUT", byId("f"))), ["email", "email2"]);
  assert.deepEqual(byTag("table"), []);
  assert.equal(byTag("*", byId("p1")).length, 1);
  assert.deepEqual(ids(byTag("b", frag(`<b id="z"></b>`))), ["z"]);
  // No element has an empty tag name: nothing is found (SPEC.md), not a selector error.
  assert.deepEqual(byTag(""), []);
  assert.deepEqual(byTag("", byId("f")), []);
}, PAGE);

domTest("bySelector() returns the first match of comma-separated selectors, or null", () => {
  assert.equal(bySelector("#p1 b, input.field")?.id, "email");
  assert.equal(bySelector("input", byId("p1")), null);
  assert.equal(bySelector(".row", byId("p1"))?.id, "b1");
}, PAGE);

domTest("bySelectorAll() returns an array of every match", () => {
  const all = bySelectorAll("b, input.wide");
  assert.equal(Array.isArray(all), true);
  assert.deepEqual(ids(all), ["email2", "b1"]);
  assert.deepEqual(bySelectorAll("table"), []);
  assert.deepEqual(ids(bySelectorAll("input", byId("row"))), ["email", "email2"]);
}, PAGE);

domTest("selection helpers reject a bad selector type or parent with a TypeError", () => {
  for (const fn of [bySelector, bySelectorAll]) {
    assert.throws(() => fn(1 as never), { name: "TypeError", message: "Expected 'selector' to be a string, got 1" });
    assert.throws(() => fn("p", "#f" as never), {
      name: "TypeError",
      message: `Expected 'parent' to be a parent node, got "#f"`,
    });
  }
  assert.throws(() => byClass("x", {} as never), { name: "TypeError", message: /'parent'/ });
  assert.throws(() => byTag(["p"] as never), { name: "TypeError", message: /'tag'/ });
  assert.throws(() => byClass(3 as never), { name: "TypeError", message: /'cls'/ });
}, PAGE);

domTest("parent() goes up a number of levels, null past the root", ({ doc }) => {
  const input = byId("email")!;
  assert.equal((parent(input) as Element).id, "row");
  assert.equal((parent(input, 2) as Element).id, "f");
  assert.equal(parent(input, 0) === input, true);
  assert.equal(parent(doc.documentElement, 1) === doc, true);
  assert.equal(parent(input, 50), null);
}, PAGE);

domTest("parent() with a function walks ancestors nearest first", () => {
  const seen: string[] = [];
  const found = parent(byId("email")!, (node) => {
    seen.push((node as Element).tagName ?? "#document");
    return (node as Element).tagName === "FORM";
  });
  assert.equal((found as Element).id, "f");
  assert.deepEqual(seen, ["DIV", "FORM"]);
}, PAGE);

domTest("parent() stops with undefined when the function returns -1, null at the root", () => {
  let calls = 0;
  assert.equal(parent(byId("email")!, () => (++calls === 2 ? -1 : false)), undefined);
  assert.equal(calls, 2);
  assert.equal(parent(byId("email")!, () => 0), null);
}, PAGE);

domTest("parent() rejects bad levels", () => {
  const input = byId("email")!;
  assert.throws(() => parent(input, -1), {
    name: "RangeError",
    message: "Expected 'level' to be a whole number or a function, got -1",
  });
  assert.throws(() => parent(input, 1.5), { name: "RangeError" });
  assert.throws(() => parent(input, "2" as never), { name: "TypeError", message: /'level'/ });
  assert.throws(() => parent(null as never), { name: "TypeError", message: "Expected 'el' to be a node, got null" });
}, PAGE);
