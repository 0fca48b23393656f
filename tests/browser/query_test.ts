import assert from "node:assert/strict";
import { buildQuery, parseQuery } from "../../browser/mod.ts";
import { domTest, withProtoAccessor } from "./_dom.ts";

Deno.test("buildQuery() encodes keys and values with encodeURIComponent, without a leading ?", () => {
  assert.equal(buildQuery({ q: "a b&c=d", "k y": "é/?" }), "q=a%20b%26c%3Dd&k%20y=%C3%A9%2F%3F");
  assert.equal(buildQuery({ n: 1, t: true, z: 0, e: "" }), "n=1&t=true&z=0&e=");
  assert.equal(buildQuery({}), "");
});

Deno.test("buildQuery() repeats the key for arrays and leaves out null and undefined", () => {
  assert.equal(buildQuery({ tag: ["a", "b c"], x: null, y: undefined, w: [null, 1] }), "tag=a&tag=b%20c&w=1");
});

Deno.test("buildQuery() rejects a non-object with a TypeError", () => {
  assert.throws(() => buildQuery("a=1" as never), {
    name: "TypeError",
    message: `Expected 'object' to be an object, got "a=1"`,
  });
});

Deno.test("parseQuery() decodes, turns + into a space, and gives 1 to a key without =", () => {
  assert.deepEqual(parseQuery("?q=a+b%20c&flag&e=&eq=x%3Dy&k%C3%A9=%C3%A9"), {
    q: "a b c",
    flag: 1,
    e: "",
    eq: "x=y",
    "ké": "é",
  });
});

Deno.test("parseQuery() gives an array of values in order for a repeated key", () => {
  assert.deepEqual(parseQuery("t=1&t=2&x&t=3&x"), { t: ["1", "2", "3"], x: [1, 1] });
});

Deno.test("parseQuery() ignores empty pairs, a fragment, and anything before ?", () => {
  assert.deepEqual(parseQuery("a=1&&b=2&"), { a: "1", b: "2" });
  assert.deepEqual(parseQuery("https://x.test/p?a=1#b=2"), { a: "1" });
  // a "?" inside a value is the value's, not the end of a URL before the query
  assert.deepEqual(parseQuery("next=/x?y=1&z=2"), { next: "/x?y=1", z: "2" });
  assert.deepEqual(parseQuery("?a&next=/x?y"), { a: 1, next: "/x?y" });
  assert.deepEqual(parseQuery(""), {});
  assert.deepEqual(parseQuery("?"), {});
  assert.deepEqual(parseQuery("bad=%ZZ&cut=%E0%A4%A"), { bad: "%ZZ", cut: "\uFFFD%A" }); // malformed escapes: no throw
  assert.deepEqual(parseQuery("toString=1&hasOwnProperty"), { toString: "1", hasOwnProperty: 1 });
});

domTest("parseQuery() without a string reads the current URL", () => {
  assert.deepEqual(parseQuery(), { x: "1" }); // the test window is at /page?x=1
});

Deno.test("parseQuery() rejects a non-string with a TypeError", () => {
  assert.throws(() => parseQuery(12 as never), { name: "TypeError", message: "Expected 'str' to be a string, got 12" });
});

Deno.test("parseQuery() drops __proto__, constructor and prototype keys", () => {
  withProtoAccessor(() => {
    const out = parseQuery("__proto__=x&__proto__[polluted]=1&constructor=2&prototype=3&a=1&%5F%5Fproto%5F%5F=4");
    assert.deepEqual(Object.keys(out), ["__proto__[polluted]", "a"]);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

Deno.test("buildQuery() turns a lone surrogate into U+FFFD and a symbol into its text, instead of throwing", () => {
  assert.equal(buildQuery({ cut: "a\uD83D", ["k\uDC00"]: 1 }), "cut=a%EF%BF%BD&k%EF%BF%BD=1");
  assert.equal(buildQuery({ s: Symbol("x") }), "s=Symbol(x)");
});

Deno.test("parseQuery() ignores the whole fragment, line breaks and all", () => {
  assert.deepEqual(parseQuery("?a=1#frag\n&evil=2\r\n&more=3"), { a: "1" });
});
