import assert from "node:assert/strict";
import { Memo } from "../../console/lib/memo.ts";

function counting(answers: Record<string, string | null>) {
  const loads: string[] = [];
  return { loads, load: (key: string) => Promise.resolve((loads.push(key), answers[key] ?? null)) };
}

Deno.test("Memo keeps what it found for ttlMs and an absence for missTtlMs, then looks again", async () => {
  let now = 1_000;
  const { loads, load } = counting({ a: "A" });
  const memo = new Memo<string>({ ttlMs: 60_000, missTtlMs: 5_000, max: 10, now: () => now }, load);
  assert.equal(await memo.get("a"), "A");
  assert.equal(await memo.get("b"), null);
  now += 4_999;
  assert.equal(await memo.get("a"), "A");
  assert.equal(await memo.get("b"), null);
  assert.deepEqual(loads, ["a", "b"], "both answered from memory");
  now += 1;
  assert.equal(await memo.get("b"), null);
  assert.deepEqual(loads, ["a", "b", "b"], "the absence lapsed after 5 s");
  now += 60_000;
  await memo.get("a");
  assert.deepEqual(loads, ["a", "b", "b", "a"], "the value lapsed after a minute");
});

Deno.test("Memo without missTtlMs looks an absence up every time, and note() replaces what it keeps", async () => {
  const { loads, load } = counting({});
  const memo = new Memo<string>({ ttlMs: 60_000, max: 10 }, load);
  await memo.get("x");
  await memo.get("x");
  assert.deepEqual(loads, ["x", "x"]);
  memo.note("x", "adopted");
  assert.equal(await memo.get("x"), "adopted");
  assert.deepEqual(loads, ["x", "x"]);
});

Deno.test("Memo forgets everything when it is full and another key is to be kept", async () => {
  const { loads, load } = counting({ a: "A", b: "B", c: "C" });
  const memo = new Memo<string>({ ttlMs: 60_000, max: 2 }, load);
  await memo.get("a");
  await memo.get("b");
  await memo.get("a");
  assert.deepEqual(loads, ["a", "b"]);
  await memo.get("c"); // the memory was full: it starts again with c
  await memo.get("a");
  assert.deepEqual(loads, ["a", "b", "c", "a"]);
});
