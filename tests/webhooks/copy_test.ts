import assert from "node:assert/strict";
import fc from "fast-check";
import { copyData } from "../../webhooks/_copy.ts";

Deno.test("copyData: plain data comes back equal and shares nothing", () => {
  fc.assert(fc.property(fc.jsonValue(), (value) => {
    const copied = copyData(value);
    assert.deepStrictEqual(copied, structuredClone(value));
    if (typeof value === "object" && value !== null) assert.notEqual(copied, value);
  }));
  const record = { id: "h1", entity: { resources: { self: { ref: "r" } }, tags: ["a", { b: 1 }] } };
  const copied = copyData(record);
  copied.entity.tags.push("c");
  (copied.entity.resources.self as { ref: string }).ref = "changed";
  assert.deepEqual(record, { id: "h1", entity: { resources: { self: { ref: "r" } }, tags: ["a", { b: 1 }] } });
});

Deno.test("copyData: an own __proto__ stays a property, and pollutes nothing", () => {
  const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
  const copied = copyData(parsed);
  assert.equal(Object.getPrototypeOf(copied), Object.prototype);
  assert.deepEqual(Object.keys(copied), ["__proto__", "a"]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepStrictEqual(copied, structuredClone(parsed));
});

Deno.test("copyData: dates, maps, cycles and deep nesting are copied as structuredClone copies them", () => {
  const cyclic: Record<string, unknown> = { name: "c" };
  cyclic.self = cyclic;
  const copied = copyData(cyclic);
  assert.equal(copied.self, copied);
  assert.notEqual(copied, cyclic);
  const when = { at: new Date(5), map: new Map([["k", 1]]) };
  const c2 = copyData(when);
  assert.ok(c2.at instanceof Date && c2.at.getTime() === 5 && c2.at !== when.at);
  assert.deepEqual([...c2.map], [["k", 1]]);
  let deep: unknown = 1;
  for (let i = 0; i < 100; i++) deep = { deep };
  assert.deepStrictEqual(copyData(deep), deep);
});
