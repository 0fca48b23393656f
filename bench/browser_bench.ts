// Library B's object and query helpers against lodash-es, structuredClone, qs
// and URLSearchParams, on a small and a large representative input each.
//
//   deno bench -A bench/browser_bench.ts
//
// Groups are named `<helper> · <small|large>` (plus ` · round <r>` with
// BENCH_ROUNDS > 1, default 9); Library B is the baseline of every group.
// scripts/bench.ts shows each row's best round and the median of the ratios
// within each round. Each round is short: 50 calls, or for calls under 10 µs,
// 10 batches of 10,000.

import assert from "node:assert/strict";
// @ts-types="npm:@types/lodash-es@^4.17.12"
import { cloneDeep, each as lodashEach, get as lodashGet, merge as lodashMerge, set as lodashSet } from "lodash-es";
// @ts-types="npm:@types/qs@^6.14.0"
import qs from "qs";
import { buildQuery, clone, each, get, merge, parseQuery, set } from "../browser/mod.ts";
import { makeRecord } from "./_fixtures.ts";

const rounds = Number(Deno.env.get("BENCH_ROUNDS") ?? 9);
if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`BENCH_ROUNDS: bad count ${rounds}`);

/** Keeps results alive so that no call can be optimised away. */
let sink: unknown;

// ---------------------------------------------------------------------------
// Inputs. Small: what a page does once per event (one webhook record, a
// short path, a handful of query parameters). Large: a list view's data.

const record = makeRecord("01JBENCH0000000000000000000", "tenant-042", 4242);
const records = Array.from({ length: 1_000 }, (_, i) => makeRecord(`01JBENCH${i}`, `tenant-${i % 100}`, 5000 + i));

const DEEP = 24;
const deepPath = Array.from({ length: DEEP }, (_, i) => `level${i}`).join(".");
function deepObject(): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let cur = root;
  for (let i = 0; i < DEEP - 1; i++) cur = (cur[`level${i}`] = { sibling: i }) as Record<string, unknown>;
  cur[`level${DEEP - 1}`] = "bottom";
  return root;
}
const deep = deepObject();

/** Settings as a page keeps them: defaults merged with a user's choices. */
function settings(size: number, variant: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < size; i++) {
    out[`section${i}`] = {
      enabled: (i + variant) % 2 === 0,
      label: `Section ${i} v${variant}`,
      limits: { max: 10 * i + variant, min: i },
      tags: [`t${i}`, `v${variant}`],
    };
  }
  return out;
}
const smallDefaults = settings(4, 0);
const smallChoices = settings(4, 1);
const largeDefaults = settings(500, 0);
const largeChoices = settings(500, 1);

const smallObject: Record<string, number> = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i]));
const largeArray = Array.from({ length: 10_000 }, (_, i) => i);

const smallQuery = { q: "community webhooks", page: 2, tags: ["document", "discussion"], sort: "date desc" };
const largeQuery: Record<string, string | string[]> = {};
for (let i = 0; i < 200; i++) {
  largeQuery[`field_${i}`] = i % 5 === 0
    ? [`value ${i}`, `größe ${i}`, `a&b=${i}`]
    : `https://tenant-${i}.community.example.com/api/core/v3/places/${i}?x=1`;
}

function searchParamsBuild(object: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const key of Object.keys(object)) {
    const value = object[key];
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item != null) params.append(key, String(item));
    }
  }
  return params.toString();
}

function searchParamsParse(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(query)) {
    const old = out[key];
    out[key] = old === undefined ? value : Array.isArray(old) ? (old.push(value), old) : [old, value];
  }
  return out;
}

const qsBuild = (object: Record<string, unknown>) => qs.stringify(object, { arrayFormat: "repeat", skipNulls: true });
const smallQueryString = buildQuery(smallQuery);
const largeQueryString = buildQuery(largeQuery);

// The contenders must agree, or the comparison means nothing.
assert.equal(get(record, "entity.resources.self.ref"), lodashGet(record, "entity.resources.self.ref"));
assert.equal(get(deep, deepPath), "bottom");
assert.equal(lodashGet(deep, deepPath), "bottom");
assert.deepEqual(clone(records), cloneDeep(records));
assert.deepEqual(merge(clone(largeDefaults), largeChoices), largeChoices);
assert.deepEqual(lodashMerge(cloneDeep(largeDefaults), largeChoices), largeChoices);
assert.deepEqual(parseQuery(largeQueryString), qs.parse(largeQueryString));
assert.deepEqual(parseQuery(largeQueryString), searchParamsParse(largeQueryString));
assert.deepEqual(parseQuery(smallQueryString), qs.parse(qsBuild(smallQuery)));
assert.deepEqual(qs.parse(largeQueryString), qs.parse(qsBuild(largeQuery)));
assert.deepEqual(parseQuery(searchParamsBuild(largeQuery)), largeQuery);

/** Rows of the current round, by group, registered by {@linkcode flush}. */
const pending = new Map<string, { name: string; fn: () => void; baseline: boolean }[]>();

function row(group: string, name: string, fn: () => void, baseline = false): void {
  pending.set(group, [...(pending.get(group) ?? []), { name, fn, baseline }]);
}

/**
 * Registers the round's rows, each group's rows rotated by the round so that
 * each takes each position in turn: whatever running first or last in a group
 * does to a measurement cancels out over the rounds.
 */
function flush(round: number): void {
  for (const [group, rows] of pending) {
    const shift = (round - 1) % rows.length;
    for (const { name, fn, baseline } of [...rows.slice(shift), ...rows.slice(0, shift)]) {
      Deno.bench({ name, group, baseline, n: 50, fn });
    }
  }
  pending.clear();
}

for (let round = 1; round <= rounds; round++) {
  const tag = rounds > 1 ? ` · round ${round}` : "";
  const group = (helper: string, size: "small" | "large") => `${helper} · ${size}${tag}`;

  row(group("get", "small"), "Library B", () => void (sink = get(record, "entity.resources.self.ref")), true);
  row(group("get", "small"), "lodash-es", () => void (sink = lodashGet(record, "entity.resources.self.ref")));
  row(group("get", "large"), "Library B", () => void (sink = get(deep, deepPath)), true);
  row(group("get", "large"), "lodash-es", () => void (sink = lodashGet(deep, deepPath)));

  const target = clone(record) as unknown as Record<string, unknown>;
  row(group("set", "small"), "Library B", () => void (sink = set(target, "entity.resources.self.ref", "x")), true);
  row(group("set", "small"), "lodash-es", () => void (sink = lodashSet(target, "entity.resources.self.ref", "x")));
  row(group("set", "large"), "Library B", () => void (sink = set({}, deepPath, 1)), true);
  row(group("set", "large"), "lodash-es", () => void (sink = lodashSet({}, deepPath, 1)));

  const smallTo = clone(smallDefaults);
  const largeTo = clone(largeDefaults);
  row(group("merge", "small"), "Library B", () => void (sink = merge(smallTo, smallChoices)), true);
  row(group("merge", "small"), "lodash-es", () => void (sink = lodashMerge(smallTo, smallChoices)));
  row(group("merge", "large"), "Library B", () => void (sink = merge(largeTo, largeChoices)), true);
  row(group("merge", "large"), "lodash-es", () => void (sink = lodashMerge(largeTo, largeChoices)));

  row(group("clone", "small"), "Library B", () => void (sink = clone(record)), true);
  row(group("clone", "small"), "lodash-es cloneDeep", () => void (sink = cloneDeep(record)));
  row(group("clone", "small"), "structuredClone", () => void (sink = structuredClone(record)));
  row(group("clone", "large"), "Library B", () => void (sink = clone(records)), true);
  row(group("clone", "large"), "lodash-es cloneDeep", () => void (sink = cloneDeep(records)));
  row(group("clone", "large"), "structuredClone", () => void (sink = structuredClone(records)));

  let total = 0;
  const add = (value: number) => void (total += value);
  row(group("each", "small"), "Library B", () => void each(smallObject, add), true);
  row(group("each", "small"), "lodash-es", () => void lodashEach(smallObject, add));
  row(group("each", "large"), "Library B", () => void each(largeArray, add), true);
  row(group("each", "large"), "lodash-es", () => void lodashEach(largeArray, add));
  sink = total;

  row(group("buildQuery", "small"), "Library B", () => void (sink = buildQuery(smallQuery)), true);
  row(group("buildQuery", "small"), "qs", () => void (sink = qsBuild(smallQuery)));
  row(group("buildQuery", "small"), "URLSearchParams", () => void (sink = searchParamsBuild(smallQuery)));
  row(group("buildQuery", "large"), "Library B", () => void (sink = buildQuery(largeQuery)), true);
  row(group("buildQuery", "large"), "qs", () => void (sink = qsBuild(largeQuery)));
  row(group("buildQuery", "large"), "URLSearchParams", () => void (sink = searchParamsBuild(largeQuery)));

  row(group("parseQuery", "small"), "Library B", () => void (sink = parseQuery(smallQueryString)), true);
  row(group("parseQuery", "small"), "qs", () => void (sink = qs.parse(smallQueryString)));
  row(group("parseQuery", "small"), "URLSearchParams", () => void (sink = searchParamsParse(smallQueryString)));
  row(group("parseQuery", "large"), "Library B", () => void (sink = parseQuery(largeQueryString)), true);
  row(group("parseQuery", "large"), "qs", () => void (sink = qs.parse(largeQueryString)));
  row(group("parseQuery", "large"), "URLSearchParams", () => void (sink = searchParamsParse(largeQueryString)));
  flush(round);
}

globalThis.addEventListener("unload", () => {
  if (sink === Symbol.for("never")) console.log(sink);
});
