// Workers in other processes: a worker killed (SIGKILL) while delivering
// 2,000 entries and a fresh one after it deliver every entry at least once,
// copies under the same webhook-id and no more copies than were in flight;
// two workers in two processes on one KV (a local file, and KV Connect)
// deliver each entry once.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";
import { type Child, spawnChild } from "../_child.ts";
import { type App, postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const CHILD = new URL("./_worker_child.ts", import.meta.url).pathname;

/** Seeds hooks, adds a destination for `app` and writes `n` postbacks (50 to a commit). */
async function fill(kv: Deno.Kv, app: App, n: number): Promise<void> {
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  await seedHooks(kv);
  await relay.destinations.add({ url: app.url });
  await relay.destinations.list();
  await new Promise((r) => setTimeout(r, 100)); // the writer's list reloads after the add
  const postbacks = Array.from({ length: n }, (_, i) => postback("h1", i, (i % 100).toString().padStart(64, "0")));
  await writeAll(kv, relay.write, postbacks, 50);
  await relay.close();
}

async function outboxEmpty(kv: Deno.Kv): Promise<boolean> {
  for await (const _ of kv.list({ prefix: ["relay_due"] }, { limit: 1 })) return false;
  for await (const _ of kv.list({ prefix: ["relay_fanout"] }, { limit: 1 })) return false;
  return true;
}

/** Ids per item (postbackId and index) and copies per id. */
function tally(app: App): { idsPerItem: Map<string, Set<string>>; copies: Map<string, number> } {
  const idsPerItem = new Map<string, Set<string>>();
  const copies = new Map<string, number>();
  for (const r of app.received) {
    const { data } = JSON.parse(r.body);
    const item = `${data.postbackId}/${data.index}`;
    if (!idsPerItem.has(item)) idsPerItem.set(item, new Set());
    idsPerItem.get(item)!.add(r.id);
    copies.set(r.id, (copies.get(r.id) ?? 0) + 1);
  }
  return { idsPerItem, copies };
}

Deno.test("a worker killed mid-delivery and a restarted one deliver all 2,000 entries, copies only of those in flight", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/relay.kv`;
  const kv = await Deno.openKv(path);
  let first: Child | null = null, second = null;
  // The 500th request kills the first worker as it arrives: however late this process would have got to a kill
  // on a loaded machine, the worker cannot have finished the outbox meanwhile.
  const app: App = startApp(async () => {
    if (app.received.length === 500 && first) Deno.kill(first.pid, "SIGKILL");
    await new Promise((r) => setTimeout(r, 2));
    return new Response("ok");
  });
  const concurrency = 16;
  try {
    await fill(kv, app, 2_000);
    first = spawnChild(CHILD, [path, String(concurrency), "1500"], { stdin: true });
    await first.waitFor("ready");
    await app.waitFor(500, 60_000);
    await first.kill();
    const atKill = app.received.length;
    assert.ok(atKill < 2_000, `${atKill} delivered before the kill`);
    second = spawnChild(CHILD, [path, String(concurrency), "1500"], { stdin: true });
    await second.waitFor("ready");
    await until(async () => tally(app).idsPerItem.size === 2_000 && await outboxEmpty(kv), 90_000, "every entry");
    await second.send("stop");
    await second.waitFor("stopped");
    const { idsPerItem, copies } = tally(app);
    assert.equal(idsPerItem.size, 2_000);
    assert.ok([...idsPerItem.values()].every((ids) => ids.size === 1), "an item went out under two ids");
    const extra = app.received.length - 2_000;
    console.log(`killed after ${atKill} requests; ${extra} copies`);
    assert.ok(extra <= concurrency, `${extra} copies, ${concurrency} in flight at most`);
    assert.equal([...copies.values()].filter((n) => n > 1).length, extra);
  } finally {
    await first?.kill();
    await second?.kill();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

async function twoWorkers(kv: Deno.Kv, path: string): Promise<void> {
  const app = startApp();
  const children = [spawnChild(CHILD, [path, "8"], { stdin: true }), spawnChild(CHILD, [path, "8"], { stdin: true })];
  try {
    await seedHooks(kv);
    await Promise.all(children.map((c) => c.waitFor("ready")));
    await fill(kv, app, 1_000);
    await until(async () => app.received.length >= 1_000 && await outboxEmpty(kv), 60_000, "every entry");
    await new Promise((r) => setTimeout(r, 300));
    for (const child of children) await child.send("stop");
    await Promise.all(children.map((c) => c.waitFor("stopped")));
    const { idsPerItem, copies } = tally(app);
    assert.equal(idsPerItem.size, 1_000);
    assert.equal(app.received.length, 1_000, "an entry was delivered twice");
    assert.ok([...copies.values()].every((n) => n === 1));
  } finally {
    for (const child of children) await child.kill();
    await app.close();
  }
}

Deno.test("two workers in two processes on one KV file deliver each entry once", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/relay.kv`);
  try {
    await twoWorkers(kv, `${dir}/relay.kv`);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two workers in two processes over KV Connect deliver each entry once", async () => {
  const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const kv = await Deno.openKv(server.url);
  try {
    await twoWorkers(kv, server.url);
  } finally {
    kv.close();
    await server.close();
  }
});
