// A fan-out record (an item written while its writer's list of destinations
// was not fresh) that no worker began is turned into entries without a read
// of its progress key first: over a KV far away, a round trip less between a
// sparse postback and its forward. A record another worker began (its
// progress key written) is still taken up where that worker left it.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

/** Counts `kv.get`s of fan-out progress keys. */
function countProgressReads(kv: Deno.Kv): { reads: number } {
  const counted = { reads: 0 };
  const get = kv.get.bind(kv);
  kv.get = ((key: Deno.KvKey, options?: { consistency?: Deno.KvConsistencyLevel }) => {
    if (key[0] === "relay_fanout_after") counted.reads++;
    return get(key, options);
  }) as typeof kv.get;
  return counted;
}

async function fanoutsLeft(kv: Deno.Kv): Promise<number> {
  return (await Array.fromAsync(kv.list({ prefix: ["relay_fanout"] }))).length;
}

Deno.test("a worker turns fan-out records no worker began without reading their progress keys", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const admin = createRelay(kv, { allowPrivateNetwork: true });
  const relay = createRelay(kv, { allowPrivateNetwork: true }); // its list not read yet: its writes fan out
  try {
    await seedHooks(kv);
    for (let i = 0; i < 3; i++) await admin.destinations.add({ url: `${app.url}/${i}` });
    const P = "q".repeat(64);
    await writeAll(kv, relay.write, Array.from({ length: 5 }, (_, i) => postback("h1", i, P)), 5); // one commit
    assert.equal(await fanoutsLeft(kv), 5);
    const counted = countProgressReads(kv);
    const worker = relay.run();
    try {
      await until(async () => (await relay.forwards(P)).filter((f) => f.state === "delivered").length === 15, 10_000);
    } finally {
      await worker.stop();
    }
    assert.equal(app.received.length, 15);
    assert.equal(await fanoutsLeft(kv), 0);
    assert.equal(counted.reads, 0, `${counted.reads} reads of progress keys for 5 records`);
  } finally {
    for (const r of [admin, relay]) await r.close();
    await app.close();
    kv.close();
  }
});

Deno.test("a fan-out record another worker began is taken up after its progress key, each copy once", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const admin = createRelay(kv, { allowPrivateNetwork: true });
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await admin.destinations.add({ url: `${app.url}/${i}` })).id);
    ids.sort();
    const P = "r".repeat(64);
    await writeAll(kv, relay.write, [postback("h1", 0, P)]);
    // As a worker that turned the first destination's copy and stopped would leave it: progress after that id.
    const [record] = await Array.fromAsync(kv.list<{ id: string }>({ prefix: ["relay_fanout"] }));
    assert.ok((await kv.set(["relay_fanout_after", record.value.id], ids[0])).ok);
    const worker = relay.run();
    try {
      await until(async () => (await fanoutsLeft(kv)) === 0 && app.received.length === 2, 10_000);
    } finally {
      await worker.stop();
    }
    // The first copy was the other worker's to add; this one added the two after it.
    assert.equal(app.received.length, 2);
    const forwards = await relay.forwards(P);
    assert.deepEqual(forwards.map((f) => [f.destinationId, f.state]).sort(), [[ids[1], "delivered"], [
      ids[2],
      "delivered",
    ]]);
  } finally {
    for (const r of [admin, relay]) await r.close();
    await app.close();
    kv.close();
  }
});
