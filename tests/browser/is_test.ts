import assert from "node:assert/strict";
import { isArray, isBool, isDom, isFunc, isNull, isNum, isObj, isStr, isUnd } from "../../browser/mod.ts";
import { domTest } from "./_dom.ts";

const SAMPLES: [string, unknown][] = [
  ["array", [1]],
  ["bool", false],
  ["func", () => 1],
  ["class", class {}],
  ["null", null],
  ["undefined", undefined],
  ["number", 1.5],
  ["zero", 0],
  ["NaN", NaN],
  ["Infinity", Infinity],
  ["object", { a: 1 }],
  ["date", new Date(0)],
  ["string", "s"],
  ["empty string", ""],
  ["boxed string", new String("s")],
  ["symbol", Symbol("s")],
];

function truthy(test: (v: unknown) => boolean): string[] {
  return SAMPLES.filter(([, v]) => test(v)).map(([name]) => name);
}

Deno.test("type tests return true exactly for their type", () => {
  assert.deepEqual(truthy(isArray), ["array"]);
  assert.deepEqual(truthy(isBool), ["bool"]);
  assert.deepEqual(truthy(isFunc), ["func", "class"]);
  assert.deepEqual(truthy(isNull), ["null"]);
  assert.deepEqual(truthy(isNum), ["number", "zero", "Infinity"]);
  assert.deepEqual(truthy(isObj), ["array", "object", "date", "boxed string"]);
  assert.deepEqual(truthy(isStr), ["string", "empty string"]);
  assert.deepEqual(truthy(isUnd), ["undefined"]);
  assert.deepEqual(truthy(isDom), []);
});

Deno.test("isObj(null) is false and isNum(NaN) is false", () => {
  assert.equal(isObj(null), false);
  assert.equal(isNum(NaN), false);
});

domTest("isDom() is true for elements and fragments of any window only", ({ doc }) => {
  assert.equal(isDom(doc.createElement("div")), true);
  assert.equal(isDom(doc.createElementNS("http://www.w3.org/2000/svg", "svg")), true);
  assert.equal(isDom(doc.createDocumentFragment()), true);
  assert.equal(isDom(doc.createTextNode("t")), false);
  assert.equal(isDom(doc), false);
  assert.equal(isDom({ nodeType: "1" }), false);
  assert.equal(isDom("<div>"), false);
});
