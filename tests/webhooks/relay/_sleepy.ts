// What the tests of sleeping, late and clock-jumping workers share: filling a
// KV with entries for one test app, and the checks that follow a run (every
// item delivered under one webhook-id, nothing left in the outbox, no dead
// letter, each forward delivered with its attempts recorded), and a child's
// CPU time, to tell a woken worker that spins from one that sleeps.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { type App, postback, seedHooks, writeAll } from "./fixtures.ts";

/** The postback id of the filled items. */
export const POSTBACK = "z".repeat(64);

/** Seeds hooks, adds a destination for `app` and writes `n` items of one postback in one commit. */
export async function fill(kv: Deno.Kv, app: App, n: number): Promise<void> {
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    await relay.destinations.list();
    await writeAll(kv, relay.write, Array.from({ length: n }, (_, i) => postback("h1", i, POSTBACK)), n);
  } finally {
    await relay.close();
  }
}

/** How many keys are under `prefix`. */
export async function count(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}

/** Whether every one of `n` items reached `app` and the outbox is empty. */
export async function allDelivered(kv: Deno.Kv, app: App, n: number): Promise<boolean> {
  const items = new Set(app.received.map((r) => JSON.parse(r.body).data.index));
  return items.size === n && await count(kv, ["relay_due"]) === 0 && await count(kv, ["relay_fanout"]) === 0;
}

/** Asserts what a user sees after all `n` items were delivered: one id an item, no dead letter, forwards delivered. */
export async function assertSettled(kv: Deno.Kv, app: App, n: number): Promise<void> {
  const idsOf = new Map<number, Set<string>>();
  for (const r of app.received) {
    const index = JSON.parse(r.body).data.index as number;
    if (!idsOf.has(index)) idsOf.set(index, new Set());
    idsOf.get(index)!.add(r.id);
  }
  assert.equal(idsOf.size, n, "an item never reached the app");
  for (const [index, ids] of idsOf) assert.equal(ids.size, 1, `item ${index} went out under ${ids.size} ids`);
  assert.equal(await count(kv, ["relay_due"]), 0, "entries left in the outbox");
  assert.equal(await count(kv, ["relay_paused"]), 0, "entries left kept");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    const dead = (await relay.deadLetters()).values;
    const told = await Promise.all(dead.map(async (d) => ({ ...d, tried: await relay.attempts(d.id) })));
    assert.deepEqual(dead, [], `a delivered entry became a dead letter: ${JSON.stringify(told)}`);
    const forwards = await relay.forwards(POSTBACK);
    assert.equal(forwards.length, n);
    for (const f of forwards) {
      assert.equal(f.state, "delivered", `entry ${f.entryId} is ${f.state}`);
      assert.ok(f.attempts >= 1);
      const attempts = await relay.attempts(f.entryId);
      assert.ok(attempts.some((a) => a.status >= 200 && a.status < 300), `entry ${f.entryId}: no 2xx attempt recorded`);
      assert.ok(attempts.length >= f.attempts, `entry ${f.entryId}: ${attempts.length} attempts, forwards says more`);
    }
  } finally {
    await relay.close();
  }
}

/** Asserts that the process `pid`, called `who`, uses under 500 ms of CPU in the next 2 s: it neither spins nor polls hard. */
export async function assertIdle(pid: number, who: string): Promise<void> {
  const before = await cpuMs(pid);
  await new Promise((r) => setTimeout(r, 2_000));
  const spent = await cpuMs(pid) - before;
  assert.ok(spent < 500, `${who} used ${spent} ms of CPU in 2 s idle`);
}

/** The CPU time (user and system, ms) the process `pid` used so far (Linux). */
async function cpuMs(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime and stime, in clock ticks of 10 ms
}
