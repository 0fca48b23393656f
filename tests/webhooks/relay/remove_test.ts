// Removing an unpinned destination deletes the entries waiting for it in the
// shared outbox, with their state for `forwards`, and leaves every other
// destination's entries as they were: its forwards are not shown waiting for
// an attempt that will never be made.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const P = "u".repeat(64);

/** The shared outbox's entries: key, versionstamp and destination. */
async function shared(kv: Deno.Kv): Promise<Array<[Deno.KvKey, string, string]>> {
  const rows: Array<[Deno.KvKey, string, string]> = [];
  for await (const e of kv.list<{ destinationId: string }>({ prefix: ["relay_due", "*"] })) {
    rows.push([e.key, e.versionstamp, e.value.destinationId]);
  }
  return rows;
}

Deno.test("removing an unpinned destination deletes its waiting entries and their forwards, and no other's", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp(() => new Response(null, { status: 503 }));
  const clock = { t: Date.now() };
  const relay = createRelay(kv, { allowPrivateNetwork: true, now: () => clock.t });
  try {
    await seedHooks(kv);
    const gone = await relay.destinations.add({ url: app.url, hookIds: ["h1"] });
    const kept = await relay.destinations.add({ url: `${app.url}/kept`, hookIds: ["h1"] });
    // 450 items: more than one commit of deletes. Each tried once and failed, so each waits for its next attempt.
    const items = Array.from({ length: 450 }, (_, i) => postback("h1", i, P));
    await writeAll(kv, relay.write, items, 50);
    const worker = relay.run({ concurrency: 64 });
    try {
      await until(async () => (await relay.forwards(P)).every((f) => f.attempts === 1), 20_000, "one attempt each");
    } finally {
      await worker.stop();
    }
    const before = await shared(kv);
    assert.equal(before.length, 900);

    assert.equal(await relay.destinations.remove(gone.id), true);
    // Its 450 stayed "pending" with a next attempt (the console: "waiting for the next attempt"), up to 10 h away,
    // until a worker reached each when due and dropped it.
    assert.deepEqual(await shared(kv), before.filter(([, , destinationId]) => destinationId === kept.id));
    const forwards = await relay.forwards(P);
    assert.equal(forwards.length, 450);
    assert.ok(forwards.every((f) => f.destinationId === kept.id));
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});
