// Regular tests of the defects hostile testing found in Library B (issue 15,
// items 1 and 2), one per kind of attack, each failing on the code before the
// fix: set() through non-string segments and inherited members, merge() into
// inherited objects, deep nesting, repeated query keys, and huge array-likes.
import assert from "node:assert/strict";
import { clone, each, get, merge, parseQuery, set } from "../../browser/mod.ts";
import { withProtoAccessor } from "./_dom.ts";

const polluted = () => ({} as Record<string, unknown>).polluted;
const fnPolluted = () => (function () {} as unknown as Record<string, unknown>).polluted;

Deno.test("set() checks each segment as the key it is written as: nested arrays and toString objects", () => {
  withProtoAccessor(() => {
    const sneaky = { toString: () => "__proto__" };
    const paths: unknown[] = [
      [["__proto__"], "polluted"],
      [sneaky, "polluted"],
      [{ toString: () => "constructor" }, "prototype", "polluted"],
      JSON.parse(`[["__proto__"], "polluted"]`),
      JSON.parse(`[["constructor"], ["prototype"], "polluted"]`),
    ];
    for (const path of paths) {
      const target: Record<string, unknown> = {};
      set(target, path as never, true);
      assert.equal(polluted(), undefined, JSON.stringify(path));
      assert.deepEqual(target, {}, JSON.stringify(path));
    }
  });
});

Deno.test("set() never writes into an inherited member: it replaces the step with an own plain object", () => {
  const o: Record<string, unknown> = {};
  set(o, "toString.polluted", true);
  set(o, "hasOwnProperty.call.polluted", true);
  set(o, "valueOf.name", "x");
  assert.equal((Object.prototype.toString as unknown as Record<string, unknown>).polluted, undefined);
  assert.equal(fnPolluted(), undefined);
  assert.equal(Object.prototype.valueOf.name, "valueOf");
  assert.deepEqual(o.toString, { polluted: true });
  // an object whose prototype holds shared data: the shared object stays untouched
  const shared = { deep: {} as Record<string, unknown> };
  const child = Object.create({ shared }) as Record<string, unknown>;
  set(child, "shared.deep.x", 1);
  assert.deepEqual(shared, { deep: {} });
  assert.deepEqual(child.shared, { deep: { x: 1 } });
  // a function or a class instance on the way is replaced, not written into
  const fn = () => {};
  const withFn: Record<string, unknown> = { fn, date: new Date(0) };
  set(withFn, "fn.x", 1);
  set(withFn, "date.x", 1);
  assert.equal((fn as unknown as Record<string, unknown>).x, undefined);
  assert.deepEqual(withFn.fn, { x: 1 });
  assert.deepEqual(withFn.date, { x: 1 });
  // own arrays and plain objects are walked as before
  const data = { list: [{ a: 1 }] };
  set(data, "list.0.b", 2);
  assert.deepEqual(data, { list: [{ a: 1, b: 2 }] });
});

Deno.test("merge() never merges into an inherited object", () => {
  const shared = { x: 1 };
  const to = Object.create({ shared }) as Record<string, unknown>;
  merge(to, { shared: { polluted: true } });
  assert.deepEqual(shared, { x: 1 });
  assert.deepEqual(to.shared, { polluted: true });
  const o: Record<string, unknown> = {};
  merge(o, JSON.parse(`{"toString": {"polluted": true}}`));
  assert.equal((Object.prototype.toString as unknown as Record<string, unknown>).polluted, undefined);
});

function nest(depth: number): Record<string, unknown> {
  let deep: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) deep = { deep };
  return deep;
}

Deno.test("clone() and merge() refuse nesting 10,000 deep with a RangeError naming the limit", () => {
  const deep = nest(10_000);
  const limit = { name: "RangeError", message: /at most 1000 levels deep/ };
  assert.throws(() => clone(deep), limit);
  assert.throws(() => merge({}, deep), limit);
  assert.throws(() => merge(nest(10_000), nest(10_000)), limit);
  assert.throws(() => merge({}, { a: [deep] }), limit);
  // cycles on both sides end at the limit instead of looping
  const a: Record<string, unknown> = {};
  a.self = a;
  const b: Record<string, unknown> = {};
  b.self = b;
  assert.throws(() => merge(a, b), limit);
  // 1,000 levels still work, and a cycle alone is kept by clone
  assert.equal(get(clone(nest(999)), "deep.deep.deep") !== undefined, true);
  const copy = clone(a) as Record<string, unknown>;
  assert.equal(copy.self, copy);
});

Deno.test("get() and set() follow a path 10,000 keys deep, and 1 MB keys and values", () => {
  const path = Array.from({ length: 10_000 }, (_, i) => `k${i % 7}`);
  const o = set({}, path, 1);
  assert.equal(get(o, path), 1);
  const big = "x".repeat(1 << 20);
  assert.equal(get(set({}, [big, "y"], big), [big, "y"]), big);
  const parsed = parseQuery(`${big}=${big}&a=1`);
  assert.equal(parsed[big], big);
  assert.equal(parsed.a, "1");
});

Deno.test("parseQuery() collects 20,000 repeats of one key in order into one array", () => {
  const query = Array.from({ length: 20_000 }, (_, i) => `k=${i}`).join("&");
  const out = parseQuery(query).k as string[];
  assert.equal(out.length, 20_000);
  assert.equal(out[0], "0");
  assert.equal(out[19_999], "19999");
});

Deno.test("each() walks an array-like only when it holds its last item; { length: 1e8 } is an object", () => {
  const seen: unknown[] = [];
  each({ length: 1e8 } as ArrayLike<unknown>, (v, i) => seen.push([i, v]));
  each({ length: 2 ** 32 } as ArrayLike<unknown>, (v, i) => seen.push([i, v]));
  each({ length: -1 } as ArrayLike<unknown>, (v, i) => seen.push([i, v]));
  assert.deepEqual(seen, [["length", 1e8], ["length", 2 ** 32], ["length", -1]]);
  const later: unknown[] = [];
  each({ length: 2, 1: "b" } as ArrayLike<unknown>, (v, i) => later.push([i, v]));
  each({ length: 0 } as ArrayLike<unknown>, (v, i) => later.push([i, v]));
  each([1, , 3], (v, i) => later.push([i, v])); // holes of a real array are visited
  assert.deepEqual(later, [[0, undefined], [1, "b"], [0, 1], [1, undefined], [2, 3]]);
});
