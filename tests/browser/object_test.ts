import assert from "node:assert/strict";
import { args, bind, clone, each, extend, get, merge, remix, set } from "../../browser/mod.ts";
import { withProtoAccessor } from "./_dom.ts";

const polluted = () => ({} as Record<string, unknown>).polluted;

Deno.test("args() converts an arguments object to an array", () => {
  function f(..._: unknown[]) {
    return args(arguments);
  }
  const out = f(1, "b", null);
  assert.equal(Array.isArray(out), true);
  assert.deepEqual(out, [1, "b", null]);
  assert.deepEqual(args({ length: 2, 0: "x", 1: "y" }), ["x", "y"]);
  assert.throws(() => args(undefined as never), {
    name: "TypeError",
    message: "Expected 'args' to be an object, got undefined",
  });
});

Deno.test("bind() fixes this and places prefill before and postfill after the call arguments", () => {
  const obj = { k: "K" };
  const fn = bind(
    function (this: typeof obj, ...a: unknown[]) {
      return [this.k, ...a];
    },
    obj,
    [1, 2],
    [9],
  );
  assert.deepEqual(fn(5, 6), ["K", 1, 2, 5, 6, 9]);
  assert.deepEqual(bind((...a: unknown[]) => a)("x"), ["x"]);
});

Deno.test("bind() defaults this to the window (globalThis outside a browser)", () => {
  const self = bind(function (this: unknown) {
    return this;
  })();
  assert.equal(self === globalThis, true);
});

Deno.test("bind() rejects a non-function and non-array fills", () => {
  assert.throws(() => bind("f" as never), { name: "TypeError", message: `Expected 'fn' to be a function, got "f"` });
  assert.throws(() => bind(() => 1, null, "a" as never), { name: "TypeError", message: /'prefill' to be an array/ });
  assert.throws(() => bind(() => 1, null, [], {} as never), { name: "TypeError", message: /'postfill'/ });
});

Deno.test("clone() deep-copies plain objects and arrays", () => {
  const src = { a: { b: [1, { c: 2 }] }, d: "x" };
  const copy = clone(src);
  assert.deepEqual(copy, src);
  copy.a.b.push(3);
  (copy.a.b[1] as { c: number }).c = 9;
  assert.deepEqual(src, { a: { b: [1, { c: 2 }] }, d: "x" });
});

Deno.test("clone() with shallow copies only the top level", () => {
  const src = { a: { b: 1 }, list: [1] };
  const copy = clone(src, true);
  assert.equal(copy === src, false);
  assert.equal(copy.a === src.a, true);
  assert.equal(copy.list === src.list, true);
});

Deno.test("clone() keeps cycles, shares class instances and dates, returns primitives", () => {
  const src: Record<string, unknown> = { when: new Date(0), map: new Map() };
  src.self = src;
  const copy = clone(src);
  assert.equal(copy.self === copy, true);
  assert.equal(copy.when === src.when, true);
  assert.equal(clone(5), 5);
  assert.equal(clone(null), null);
  assert.equal(clone("s"), "s");
});

Deno.test("merge() deep-merges into mergeTo and returns it", () => {
  const to = { a: { x: 1, y: 1 }, list: [1, 2], keep: true };
  const from = { a: { y: 2, z: 3 }, list: [3], extra: { n: 1 } };
  const out = merge(to, from);
  assert.equal(out === to, true);
  assert.deepEqual(to, { a: { x: 1, y: 2, z: 3 }, list: [3], keep: true, extra: { n: 1 } });
  (to.extra as { n: number }).n = 2;
  assert.equal(from.extra.n, 1); // values are copied, not shared
});

Deno.test("merge() with clone leaves mergeTo untouched; with shallow replaces nested objects", () => {
  const to = { a: { x: 1 } };
  const cloned = merge(to, { a: { y: 2 } }, { clone: true });
  assert.deepEqual(to, { a: { x: 1 } });
  assert.deepEqual(cloned, { a: { x: 1, y: 2 } });
  const shallow = merge({ a: { x: 1 } }, { a: { y: 2 } }, { shallow: true });
  assert.deepEqual(shallow, { a: { y: 2 } });
});

Deno.test("merge() with a null or undefined mergeFrom changes nothing", () => {
  const to = { a: 1 };
  assert.deepEqual(merge(to, null), { a: 1 });
  assert.deepEqual(merge(to, undefined), { a: 1 });
});

Deno.test("merge() rejects non-object arguments", () => {
  assert.throws(() => merge(null as never, {}), {
    name: "TypeError",
    message: "Expected 'mergeTo' to be an object, got null",
  });
  assert.throws(() => merge({}, "x" as never), { name: "TypeError", message: /'mergeFrom'/ });
  assert.throws(() => merge({}, {}, 1 as never), { name: "TypeError", message: /'options'/ });
});

Deno.test("each() calls fn with value, index and the array", () => {
  const seen: unknown[] = [];
  const list = ["a", "b"];
  each(list, (v, i, o) => seen.push([v, i, o === list]));
  assert.deepEqual(seen, [["a", 0, true], ["b", 1, true]]);
});

Deno.test("each() calls fn with value, key and the object for objects, and walks array-likes by index", () => {
  const seen: unknown[] = [];
  each({ x: 1, y: 2 }, (v, k) => seen.push([k, v]));
  each({ length: 1, 0: "z" } as ArrayLike<string>, (v, i) => seen.push([i, v]));
  assert.deepEqual(seen, [["x", 1], ["y", 2], [0, "z"]]);
  assert.throws(() => each("abc" as never, () => {}), { name: "TypeError", message: /'obj'/ });
  assert.throws(() => each([], null as never), { name: "TypeError", message: /'fn'/ });
});

Deno.test("extend() makes an ES class inherit another, with extra methods", () => {
  class Base {
    hi() {
      return "base";
    }
    static make() {
      return "made";
    }
  }
  class Child {
    own() {
      return "own";
    }
  }
  extend(Child, Base, {
    extra() {
      return "extra";
    },
  });
  const c = new Child() as Child & Base & { extra(): string };
  assert.equal(c instanceof Base, true);
  assert.equal(c.hi(), "base");
  assert.equal(c.own(), "own");
  assert.equal(c.extra(), "extra");
  assert.equal((Child as unknown as typeof Base).make(), "made");
});

Deno.test("extend() works with constructor functions and skips unsafe method names", () => {
  function Animal(this: { legs: number }) {
    this.legs = 4;
  }
  Animal.prototype.walk = function () {
    return "walk";
  };
  function Dog() {}
  extend(Dog, Animal, JSON.parse(`{"__proto__": {"polluted": 1}, "prototype": 1, "constructor": 2}`));
  // deno-lint-ignore no-explicit-any
  const dog = new (Dog as any)();
  assert.equal(dog.walk(), "walk");
  assert.equal(dog instanceof Animal, true);
  assert.equal(Dog.prototype.constructor === Dog, true);
  assert.equal(polluted(), undefined);
  assert.throws(() => extend({} as never, Animal), { name: "TypeError", message: /'target'/ });
  assert.throws(() => extend(Dog, null as never), { name: "TypeError", message: /'source'/ });
  assert.throws(() => extend(Dog, Animal, "m" as never), { name: "TypeError", message: /'methods'/ });
});

Deno.test("get() reads deep paths from strings and arrays, with a default", () => {
  const data = { a: { b: { c: 0 }, list: [{ n: "x" }] }, nil: null };
  assert.equal(get(data, "a.b.c"), 0);
  assert.equal(get(data, ["a", "list", 0, "n"]), "x");
  assert.equal(get(data, "a.list.0.n"), "x");
  assert.equal(get(data, "a.nope.deeper", "def"), "def");
  assert.equal(get(data, "a.nope"), undefined);
  assert.equal(get(data, "nil"), null);
  assert.equal(get(data, "nil.x", 1), 1);
  assert.equal(get(null, "a", 2), 2);
  assert.throws(() => get(data, {} as never), { name: "TypeError", message: /'path'/ });
});

Deno.test("set() writes deep values, creating objects along the way", () => {
  const o: Record<string, unknown> = { a: 1 };
  assert.equal(set(o, "b.c.d", 1) === o, true);
  set(o, ["e", "f"], 2);
  set(o, "a.x", 3); // a primitive in the way is replaced
  assert.deepEqual(o, { a: { x: 3 }, b: { c: { d: 1 } }, e: { f: 2 } });
});

Deno.test("set() with conditional writes only where no value is present", () => {
  const o: Record<string, unknown> = { a: { b: 1 } };
  set(o, "a.b", 2, true);
  set(o, "a.c", 3, true);
  assert.deepEqual(o, { a: { b: 1, c: 3 } });
  assert.throws(() => set("x" as never, "a", 1), {
    name: "TypeError",
    message: `Expected 'obj' to be an object, got "x"`,
  });
});

Deno.test("remix() picks and renames keys into a new object", () => {
  const src = { id: 1, name: "n", secret: "s" };
  assert.deepEqual(remix(src, { id: "userId", name: 1 }), { userId: 1, name: "n" });
  assert.deepEqual(remix(src, { missing: true }), { missing: undefined });
  assert.deepEqual(src, { id: 1, name: "n", secret: "s" });
});

Deno.test("remix() returns false when obj or keys is not an object", () => {
  assert.equal(remix(null, { a: 1 }), false);
  assert.equal(remix({ a: 1 }, "a" as never), false);
  assert.equal(remix("str", {}), false);
});

Deno.test("merge(), set() and clone() refuse __proto__, constructor and prototype keys", () => {
  withProtoAccessor(() => {
    // control: with the standard accessor in place a naive deep merge pollutes
    const naive = (to: Record<string, unknown>, from: Record<string, unknown>) => {
      for (const k in from) {
        if (typeof from[k] === "object") {
          naive((to[k] ??= {}) as Record<string, unknown>, from[k] as Record<string, unknown>);
        } else to[k] = from[k];
      }
    };
    naive({}, JSON.parse(`{"__proto__": {"polluted": "yes"}}`));
    assert.equal(polluted(), "yes");
    delete (Object.prototype as Record<string, unknown>).polluted;

    const attacks = [
      `{"__proto__": {"polluted": 1}}`,
      `{"constructor": {"prototype": {"polluted": 1}}}`,
      `{"a": {"__proto__": {"polluted": 1}}}`,
    ];
    for (const json of attacks) {
      const target: Record<string, unknown> = {};
      merge(target, JSON.parse(json));
      merge({}, JSON.parse(json), { shallow: true });
      merge({}, JSON.parse(json), { clone: true });
      const copy = clone(JSON.parse(json)) as Record<string, unknown>;
      assert.equal(Object.getPrototypeOf(target), Object.prototype);
      assert.equal(Object.getPrototypeOf(copy), Object.prototype);
      assert.equal(Object.hasOwn(copy, "__proto__"), false);
      assert.equal(Object.hasOwn(copy, "constructor"), false);
      assert.equal(polluted(), undefined, json);
    }
    for (const path of ["__proto__.polluted", "constructor.prototype.polluted", "a.__proto__.polluted", "prototype"]) {
      const target: Record<string, unknown> = {};
      assert.equal(set(target, path, 1), target);
      assert.deepEqual(target, {});
      assert.equal(polluted(), undefined, path);
    }
    set({}, ["__proto__", "polluted"], 1);
    assert.throws(() => set(Object as never, "prototype.polluted", 1), { name: "TypeError", message: /'obj'/ });
    const renamed = remix({ a: { polluted: 1 } }, { a: "__proto__" }) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(renamed), Object.prototype);
    assert.equal(polluted(), undefined);
  });
});

Deno.test("set() with an empty path writes nothing and returns obj, as get() with one returns obj", () => {
  const o = { a: 1 };
  assert.equal(set(o, [], 2), o);
  assert.deepEqual(o, { a: 1 });
  assert.equal(get(o, []), o);
  assert.throws(() => set({ a: [] }, "a.length.b", 1), RangeError);
});

Deno.test("merge() with clone augments a class instance given as mergeTo, as its options say", () => {
  class Point {
    x = 1;
  }
  const p = new Point();
  const out = merge(p, { x: 2 }, { clone: true });
  assert.equal(out, p);
  assert.equal(p.x, 2);
  const plain = { x: 1 };
  assert.notEqual(merge(plain, { x: 2 }, { clone: true }), plain);
  assert.equal(plain.x, 1);
});
