// Two moves of one destination's kept entries back to the outbox at once (an
// enable, and a worker's housekeeping look beside it) move each entry once:
// the enable's move is held back until the worker moved and delivered the
// entry, and must then be refused (the kept entry is gone). Committed, it
// would put the entry in the outbox again: the app would get it twice.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { holdFirst } from "../../_hold_first.ts";
import { count, fill, POSTBACK } from "./_sleepy.ts";
import { startApp, until } from "./fixtures.ts";

Deno.test("an enable and a worker's housekeeping moving one kept entry at once send it once", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/relay.kv`;
  const kvA = await Deno.openKv(path);
  const kvB = await Deno.openKv(path);
  const app = startApp();
  const options = { allowPrivateNetwork: true, pollMs: 100 };
  const a = createRelay(kvA, options);
  const b = createRelay(kvB, options);
  const c = createRelay(kvA, options); // its list read after the enable: it sees the destination enabled
  let worker = null;
  let enabling: Promise<unknown> = Promise.resolve();
  const hold = holdFirst(kvB, (key, mutation) => key[0] === "relay_paused" && mutation === "delete");
  try {
    await fill(kvA, app, 1);
    const [destination] = await a.destinations.list();
    await a.destinations.update(destination.id, { enabled: false });
    const parker = a.run({ concurrency: 1 });
    await until(async () => await count(kvA, ["relay_paused"]) === 1, 10_000, "the entry kept");
    await parker.stop();
    enabling = b.destinations.update(destination.id, { enabled: true });
    await hold.held; // the enable is about to move the kept entry back
    worker = c.run({ concurrency: 1 }); // its first housekeeping look moves it back too
    await until(async () => (await a.forwards(POSTBACK))[0]?.state === "delivered", 10_000, "the entry delivered");
    hold.release();
    await enabling;
    await new Promise((r) => setTimeout(r, 1_500)); // a second copy goes out meanwhile
    await worker.stop();
    assert.equal(app.received.length, 1, "the kept entry was moved back twice and went out twice");
    assert.equal(await count(kvA, ["relay_due"]), 0, "a copy of the kept entry is left in the outbox");
  } finally {
    hold.release();
    await enabling.catch(() => {});
    await worker?.stop();
    for (const r of [a, b, c]) await r.close();
    await app.close();
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
});
