// A dead letter whose destination's record is damaged is redelivered into its destination's waiting entries (kept
// there, as a disabled destination's are, until the record is removed): the destination is listed, damaged, so
// "its destination no longer exists" would be false. A damaged record's raw `pinned` or `id` does not choose the
// partition either: `pinned: "yes"` with an `id` unlike its key's put the entry in a partition no worker reads.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const P = "r".repeat(64);

async function redeliveredAfter(damage: (record: Record<string, unknown>) => unknown): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const app = startApp(() => new Response("gone", { status: 410 }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 50 });
  try {
    await seedHooks(kv);
    const { id } = await relay.destinations.add({ url: app.url });
    await writeAll(kv, relay.write, [postback("h1", 0, P)]);
    const worker = relay.run({ concurrency: 1 });
    await until(async () => (await relay.deadLetters()).values.length === 1, 5_000, "the 410's dead letter");
    await worker.stop();
    const [letter] = (await relay.deadLetters()).values;
    const key = ["relay_destination", id];
    const record = (await kv.get<Record<string, unknown>>(key)).value!;
    await kv.atomic().set(key, damage(record)).sum(["relay_destinations_version"], 1n).commit();
    assert.equal(await relay.redeliver(letter.id), true);
    const partitions: Deno.KvKeyPart[] = [];
    for await (const e of kv.list({ prefix: ["relay_due"] })) partitions.push(e.key[1]);
    assert.deepEqual(partitions, ["*"], "due in the shared partition, where a worker takes it and keeps it");
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
}

Deno.test("a dead letter of a destination whose record is null is redelivered, not refused as gone", async () => {
  await redeliveredAfter(() => null);
});

Deno.test("a dead letter of a damaged record with pinned: 'yes' and a foreign id is due in the shared partition", async () => {
  await redeliveredAfter((record) => ({ ...record, pinned: "yes", id: "someone-else" }));
});
