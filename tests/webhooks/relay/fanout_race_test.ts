// Two workers that turn the same fan-out record into entries at once make
// its copies once: worker B's commit is held back until worker A turned the
// record, and must then be refused (the record is gone). Committed, it would
// add a second entry for the destination: the app would get the item twice,
// under two webhook-ids.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { holdFirst } from "../../_hold_first.ts";
import { count } from "./_sleepy.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

Deno.test("two workers turning one fan-out record at once make its copy once", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/relay.kv`;
  const kvA = await Deno.openKv(path);
  const kvB = await Deno.openKv(path);
  const hold = holdFirst(kvB, (key, mutation) => key[0] === "relay_fanout" && mutation === "delete");
  const app = startApp();
  const options = { allowPrivateNetwork: true, pollMs: 100 };
  const a = createRelay(kvA, options);
  const b = createRelay(kvB, options);
  const writer = createRelay(kvA, options); // its list not read: its write is a fan-out record
  let workerA = null, workerB = null;
  try {
    await seedHooks(kvA);
    await a.destinations.add({ url: app.url });
    const P = "f".repeat(64);
    await writeAll(kvA, writer.write, [postback("h1", 0, P)]);
    assert.equal(await count(kvA, ["relay_fanout"]), 1);
    workerB = b.run({ concurrency: 1 });
    await hold.held; // B is about to commit the record's copy
    workerA = a.run({ concurrency: 1 });
    await until(async () => (await a.forwards(P))[0]?.state === "delivered", 10_000, "A delivered the copy");
    hold.release();
    await new Promise((r) => setTimeout(r, 1_500)); // a second copy, made by B, goes out meanwhile
    await workerA.stop();
    await workerB.stop();
    assert.equal(app.received.length, 1, "the item went out twice");
    assert.equal((await a.forwards(P)).length, 1, "the record was turned into two entries");
  } finally {
    hold.release();
    await workerA?.stop();
    await workerB?.stop();
    for (const r of [a, b, writer]) await r.close();
    await app.close();
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
});
