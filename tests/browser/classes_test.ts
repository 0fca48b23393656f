// browser/classes.ts on a DOM: addClass(), delClass(), setClass() and
// hasClass(), and the TypeError naming a bad argument.

import assert from "node:assert/strict";
import { addClass, delClass, hasClass, setClass } from "../../browser/mod.ts";
import { domTest } from "./_dom.ts";

domTest("addClass() adds a class to the element, and several space-separated", ({ doc }) => {
  const el = doc.createElement("p");
  el.className = "a";
  addClass(el, "b");
  addClass(el, "  c   d ");
  addClass(el, "b");
  assert.equal(el.className, "a b c d");
  addClass(el, "");
  assert.equal(el.className, "a b c d");
});

domTest("delClass() removes a class and leaves the others", ({ doc }) => {
  const el = doc.createElement("p");
  el.className = "a b c";
  delClass(el, "b");
  assert.equal(el.className, "a c");
  delClass(el, "a c missing");
  assert.equal(el.className, "");
});

domTest("setClass() replaces every class", ({ doc }) => {
  const el = doc.createElement("p");
  el.className = "a b";
  setClass(el, "c d");
  assert.equal(el.getAttribute("class"), "c d");
  assert.equal(el.classList.contains("a"), false);
});

domTest("hasClass() tests one class or all of several", ({ doc }) => {
  const el = doc.createElement("p");
  el.className = "a b";
  assert.equal(hasClass(el, "a"), true);
  assert.equal(hasClass(el, "b a"), true);
  assert.equal(hasClass(el, "a c"), false);
  assert.equal(hasClass(el, "ab"), false);
  assert.equal(hasClass(el, ""), false);
});

domTest("class helpers throw a TypeError naming the bad argument", ({ doc }) => {
  for (const fn of [addClass, delClass, setClass, hasClass]) {
    assert.throws(() => fn(null as unknown as Element, "a"), {
      name: "TypeError",
      message: "Expected 'el' to be an element, got null",
    });
    assert.throws(() => fn(doc.createTextNode("x") as unknown as Element, "a"), {
      name: "TypeError",
      message: /'el' to be an element, got Text/,
    });
    assert.throws(() => fn(doc.createElement("p"), 42 as unknown as string), {
      name: "TypeError",
      message: "Expected 'cls' to be a string, got 42",
    });
  }
});
