// Library B's object and query-string helpers against hostile objects: Proxies
// and getters that throw, frozen objects, prototype keys from JSON, Symbols, sparse arrays of length 2^32-1,
// and round trips under fast-check.
import assert from "node:assert/strict";
import fc from "fast-check";
import { buildQuery, clone, each, extend, get, merge, parseQuery, remix, set } from "../../browser/mod.ts";

const polluted = () => ({} as Record<string, unknown>).polluted;

Deno.test("prototype keys from JSON pollute nothing, through every helper", () => {
  const evil = JSON.parse(
    `{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"prototype":{"polluted":3},` +
      `"a":{"__proto__":{"polluted":4}}}`,
  );
  merge({}, evil);
  merge({ a: {} }, evil);
  merge({}, evil, { clone: true });
  const copy = clone(evil);
  assert.deepEqual(Object.keys(copy), ["a"]);
  assert.equal(Object.getPrototypeOf(copy.a), Object.prototype);
  set({}, "__proto__.polluted", 1);
  set({}, ["constructor", "prototype", "polluted"], 1);
  parseQuery("__proto__=1&constructor=2&prototype=3&__proto__[polluted]=4");
  extend(function A() {}, function B() {}, JSON.parse(`{"__proto__":{"polluted":5}}`));
  assert.deepEqual(remix({ a: 1 }, { a: "__proto__" }), {});
  assert.equal(polluted(), undefined);
});

Deno.test("frozen objects: clone and merge with clone copy them; writing into one throws the engine's TypeError", () => {
  const frozen = Object.freeze({ a: Object.freeze({ b: 1 }), list: Object.freeze([1, 2]) });
  assert.deepEqual(merge(frozen, { a: { c: 2 } }, { clone: true }), { a: { b: 1, c: 2 }, list: [1, 2] });
  assert.equal(Object.isFrozen(clone(frozen)), false);
  assert.equal(buildQuery(frozen), "a=%5Bobject%20Object%5D&list=1&list=2");
  assert.throws(() => merge(frozen, { z: 1 }), TypeError);
  assert.deepEqual(frozen, { a: { b: 1 }, list: [1, 2] });
});

Deno.test("getters and Proxies that throw: their error comes out, nothing is half-written", () => {
  const getter = Object.defineProperty({ ok: 1 }, "bad", {
    enumerable: true,
    get() {
      throw new Error("getter");
    },
  });
  const target: Record<string, unknown> = { keep: 1 };
  assert.throws(() => merge(target, getter, { clone: true }), /getter/);
  assert.deepEqual(target, { keep: 1 });
  assert.throws(() => clone(getter), /getter/);
  assert.throws(() => buildQuery(getter), /getter/);
  assert.throws(() => buildQuery({ a: { toString: () => assert.fail("toString") } }), /toString/);
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  assert.throws(() => clone(revoked.proxy), TypeError);
  assert.throws(() => each(revoked.proxy, () => {}), TypeError);
  assert.deepEqual(clone(new Proxy({ a: [1] }, {})), { a: [1] });
  assert.equal(get(new Proxy({}, { get: () => undefined }), "a.b", "def"), "def");
});

Deno.test("Symbols and sparse arrays of length 2^32-1", () => {
  assert.equal(buildQuery({ s: Symbol("x"), [Symbol("k")]: 1 }), "s=Symbol(x)");
  const sparse: unknown[] = [];
  sparse.length = 2 ** 32 - 1;
  sparse[7] = "x";
  const copy = clone(sparse);
  assert.equal(copy.length, 2 ** 32 - 1);
  assert.deepEqual(Object.keys(copy), ["7"]);
  assert.equal(buildQuery({ a: sparse }), "a=x");
  const seen: unknown[] = [];
  each(sparse, (v, i) => seen.push(i, v));
  assert.deepEqual(seen, [7, "x"]);
  assert.deepEqual(merge({ a: [] }, { a: sparse }).a.length, 2 ** 32 - 1);
});

Deno.test("round trips under fast-check: parseQuery(buildQuery(q)) and clone", () => {
  const key = fc.string({ unit: "grapheme", minLength: 1 }).filter((k) =>
    !["__proto__", "constructor", "prototype"].includes(k)
  );
  const value = fc.oneof(
    fc.string({ unit: "grapheme" }),
    fc.array(fc.string({ unit: "grapheme" }), { minLength: 2, maxLength: 4 }),
  );
  fc.assert(fc.property(fc.dictionary(key, value), (q) => {
    assert.deepEqual(parseQuery(buildQuery(q)), { ...q });
  }));
  // keys clone leaves out by design are kept out of the values it must copy whole
  const json = fc.jsonValue().filter((v) => !/"(__proto__|constructor|prototype)":/.test(JSON.stringify(v)));
  fc.assert(fc.property(json, (v) => {
    assert.deepEqual(clone(v), v);
    assert.equal(polluted(), undefined);
  }));
});
