// Property tests of Library B's untrusted-input helpers (set, get, merge,
// clone, extend, remix, parseQuery, buildQuery), written against any copy of
// the library and of fast-check so that the same properties run in Deno and,
// bundled, in Chromium. Each property checks that no built-in prototype or
// method changed, that only documented errors are thrown, and the result.
// No Deno API here: this file is bundled for the browser.
import type * as Lib from "../../browser/mod.ts";
import type * as FC from "fast-check";

type FastCheck = typeof FC.default;

/** What a property run found: an empty list when every property held. */
export type Findings = string[];

/** The built-ins untrusted input must never change, with their own keys and values. */
function snapshot(): Map<object, Map<PropertyKey, unknown>> {
  const roots: object[] = [
    Object.prototype,
    Function.prototype,
    Array.prototype,
    String.prototype,
    Number.prototype,
    Boolean.prototype,
    Object,
    Function,
    Array,
  ];
  const all = new Set<object>(roots);
  for (const root of roots) {
    for (const key of Reflect.ownKeys(root)) {
      const desc = Object.getOwnPropertyDescriptor(root, key)!;
      if (typeof desc.value === "function") all.add(desc.value); // every built-in method
    }
  }
  const out = new Map<object, Map<PropertyKey, unknown>>();
  for (const obj of all) {
    const props = new Map<PropertyKey, unknown>();
    for (const key of Reflect.ownKeys(obj)) {
      const desc = Object.getOwnPropertyDescriptor(obj, key)!;
      props.set(key, "value" in desc ? desc.value : desc.get);
    }
    props.set("[[Prototype]]", Object.getPrototypeOf(obj));
    out.set(obj, props);
  }
  return out;
}

/** Names what differs from `before`, and puts back what it can so later runs start clean. */
function changes(before: Map<object, Map<PropertyKey, unknown>>): string[] {
  const found: string[] = [];
  for (const [obj, props] of before) {
    const name = (obj as { name?: string }).name || String(Object.prototype.toString.call(obj));
    for (const key of Reflect.ownKeys(obj)) {
      if (!props.has(key)) {
        found.push(`${name}.${String(key)} was added`);
        try {
          delete (obj as Record<PropertyKey, unknown>)[key];
        } catch { /* a non-configurable addition stays: reported above */ }
      }
    }
    for (const [key, value] of props) {
      const now = key === "[[Prototype]]" ? Object.getPrototypeOf(obj) : (() => {
        const desc = Object.getOwnPropertyDescriptor(obj, key);
        return desc && ("value" in desc ? desc.value : desc.get);
      })();
      if (!Object.is(now, value)) found.push(`${name}.${String(key)} was changed`);
    }
  }
  return found;
}

/** Keys an attacker would try, and ordinary ones. */
function arbitraries(fc: FastCheck) {
  const key = fc.oneof(
    fc.constantFrom(
      "__proto__",
      "constructor",
      "prototype",
      "toString",
      "valueOf",
      "hasOwnProperty",
      "call",
      "apply",
      "bind",
      "name",
      "a",
      "b",
      "0",
      "1",
    ),
    fc.string({ maxLength: 5 }),
  );
  // a segment as a caller might pass it: a key, a nested array, or an object whose toString names a key
  const segment = fc.oneof(
    key,
    fc.array(key, { minLength: 1, maxLength: 2 }),
    key.map((k) => ({ toString: () => k })),
  );
  const path = fc.oneof(
    fc.array(key, { minLength: 1, maxLength: 5 }).map((keys) => keys.join(".")),
    fc.array(segment, { minLength: 1, maxLength: 5 }),
    // a JSON-parsed array path
    fc.array(fc.oneof(key, fc.array(key, { maxLength: 2 })), { minLength: 1, maxLength: 5 })
      .map((keys) => JSON.parse(JSON.stringify(keys))),
  );
  // untrusted JSON: parsed, so "__proto__" is an own key as it is in real input
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null)),
      tie("object"),
      fc.array(tie("value"), { maxLength: 3 }),
    ),
    object: fc.dictionary(key, tie("value"), { maxKeys: 4 }),
  })).object.map((obj) => JSON.parse(JSON.stringify(obj)));
  // targets: plain data, data with inherited members, arrays and a class instance
  const target = fc.oneof(
    json,
    json.map((own) => Object.assign(Object.create({ shared: { deep: {} }, method() {} }), own)),
    fc.array(json, { maxLength: 3 }),
    json.map((own) => Object.assign(new (class Box {})(), own)),
  );
  return { key, path, json, target };
}

/** Runs `fn`, allowing only the error kinds given, and reports any pollution. */
function guarded(found: Findings, label: string, allowed: ErrorConstructor[], fn: () => void): boolean {
  const before = snapshot();
  try {
    fn();
  } catch (err) {
    if (!allowed.some((kind) => err instanceof kind)) found.push(`${label}: threw ${String(err)}`);
  }
  const changed = changes(before);
  for (const change of changed) found.push(`${label}: ${change}`);
  return changed.length === 0;
}

/**
 * The reference parse: one URLSearchParams per pair, as Library B did before
 * (a URL's part before its "?" dropped, a "?" after a "=" or "&" kept, and
 * a leading "&" so that a "?" opening a pair is a key, not stripped).
 */
export function referenceParse(str: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of str.replace(/^[^?#=&]*\?|#[^]*/g, "").split("&")) {
    for (const [key, text] of new URLSearchParams("&" + pair)) {
      const value = pair.includes("=") ? text : 1;
      if (key && !["__proto__", "constructor", "prototype"].includes(key)) {
        out[key] = Object.hasOwn(out, key) ? [out[key], value].flat() : value;
      }
    }
  }
  return out;
}

/**
 * Runs every property `numRuns` times with fast-check and returns what failed
 * (fast-check's report with the shrunk counterexample, or the pollution seen).
 */
export function runProperties(lib: typeof Lib, fc: FastCheck, numRuns: number): Findings {
  const found: Findings = [];
  const { key, path, json, target } = arbitraries(fc);
  const check = (name: string, property: FC.IProperty<never> | FC.IProperty<unknown[]>) => {
    const result = fc.check(property as FC.IProperty<unknown>, { numRuns });
    if (result.failed) found.push(`${name}: ${String(result.errorInstance)}\n${fc.defaultReportMessage(result)}`);
  };
  const holds = (label: string, allowed: ErrorConstructor[], fn: () => void) => {
    const local: Findings = [];
    guarded(local, label, allowed, fn);
    if (local.length) throw new Error(local.join("; "));
    return true;
  };

  check(
    "set",
    fc.property(
      target,
      path,
      fc.anything(),
      fc.boolean(),
      (obj, p, value, conditional) =>
        holds("set", [TypeError], () => {
          lib.set(obj, p, value, conditional);
        }),
    ),
  );
  check(
    "get",
    fc.property(target, path, (obj, p) => holds("get", [], () => void lib.get(obj, p))),
  );
  check(
    "merge",
    fc.property(
      target,
      json,
      fc.boolean(),
      fc.boolean(),
      (to, from, clone, shallow) => holds("merge", [], () => void lib.merge(to, from, { clone, shallow })),
    ),
  );
  check(
    "clone",
    fc.property(json, fc.boolean(), (obj, shallow) =>
      holds("clone", [], () => {
        const copy = lib.clone(obj, shallow) as Record<string, unknown>;
        if (Object.getPrototypeOf(copy) !== Object.prototype) throw new Error("the clone's prototype changed");
        for (const unsafe of ["__proto__", "constructor", "prototype"]) {
          if (Object.hasOwn(copy, unsafe)) throw new Error(`the clone kept ${unsafe}`);
        }
      })),
  );
  check(
    "extend and remix",
    fc.property(json, fc.dictionary(key, key), (methods, names) =>
      holds("extend and remix", [], () => {
        class Base {}
        class Child {}
        lib.extend(Child, Base, methods);
        const out = lib.remix(methods, names) as object;
        if (Object.getPrototypeOf(out) !== Object.prototype) throw new Error("remix's result has another prototype");
      })),
  );
  const query = fc.stringMatching(/^[?#=&+%a-zA-Z0-9_.\u00e9\u{1F600}\s]*$/u).chain((s) =>
    fc.oneof(fc.constant(s), fc.constantFrom("__proto__=1", "constructor[prototype]=1", "%E9", "%ZZ", "%F0%9F", "a=%"))
      .map((extra) => s + "&" + extra)
  );
  check(
    "parseQuery",
    fc.property(query, (str) =>
      holds("parseQuery", [], () => {
        const got = JSON.stringify(lib.parseQuery(str));
        const want = JSON.stringify(referenceParse(str));
        if (got !== want) throw new Error(`parseQuery(${JSON.stringify(str)}) gave ${got}, expected ${want}`);
      })),
  );
  const safeKey = fc.string({ minLength: 1, maxLength: 6 }).filter((k) =>
    !["__proto__", "constructor", "prototype"].includes(k)
  );
  check(
    "buildQuery round trip",
    fc.property(
      fc.dictionary(safeKey, fc.oneof(fc.string(), fc.array(fc.string(), { minLength: 2, maxLength: 3 }))),
      (obj) =>
        holds("buildQuery", [], () => {
          const got = JSON.stringify(lib.parseQuery(lib.buildQuery(obj)));
          if (got !== JSON.stringify(obj)) throw new Error(`round trip of ${JSON.stringify(obj)} gave ${got}`);
        }),
    ),
  );
  return found;
}
