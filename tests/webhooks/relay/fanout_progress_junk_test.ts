// A fan-out record's progress key (["relay_fanout_after", id]: the destination id a worker's last commit of the record
// reached) edited by hand into junk (a number, an object, a boolean, a list) names no destination to go on after: the
// record is turned as one no worker began, a copy for each destination, rather than deleted with none (the postback then
// lost without a trace). A `null` there, as before, also starts from the first destination.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

async function left(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  return (await Array.fromAsync(kv.list({ prefix }))).length;
}

for (const [name, junk] of [["a number", 5], ["an object", {}], ["true", true], ["a list", ["z"]], ["null", null]]) {
  Deno.test(`a fan-out record whose progress key holds ${name} still reaches each destination once`, async () => {
    const kv = await Deno.openKv(":memory:");
    const app = startApp();
    const admin = createRelay(kv, { allowPrivateNetwork: true });
    const relay = createRelay(kv, { allowPrivateNetwork: true }); // its list not read yet: its write fans out
    try {
      await seedHooks(kv);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await admin.destinations.add({ url: `${app.url}/${i}` })).id);
      const P = "j".repeat(64);
      await writeAll(kv, relay.write, [postback("h1", 0, P)]);
      const [record] = await Array.fromAsync(kv.list<{ id: string }>({ prefix: ["relay_fanout"] }));
      assert.ok((await kv.set(["relay_fanout_after", record.value.id], junk)).ok);
      const worker = relay.run();
      try {
        // The record turned, and every entry it became finished (delivered entries leave the outbox).
        await until(async () => (await left(kv, ["relay_fanout"])) + (await left(kv, ["relay_due"])) === 0, 10_000);
      } finally {
        await worker.stop();
      }
      assert.equal(app.received.length, 3);
      const forwards = await relay.forwards(P);
      assert.deepEqual(
        forwards.map((f) => [f.destinationId, f.state]).sort(),
        ids.sort().map((id) => [id, "delivered"]),
      );
      assert.equal(await left(kv, ["relay_fanout_after"]), 0, "the progress key was left");
    } finally {
      for (const r of [admin, relay]) await r.close();
      await app.close();
      kv.close();
    }
  });
}
