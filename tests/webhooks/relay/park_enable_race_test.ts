// A worker keeps (parks) an entry of a disabled destination only while the
// destination is still as it read it: an enable that lands between the
// worker's read and its park commit has already moved the kept entries back,
// so a park committed after it would leave the entry kept for an enabled
// destination, undelivered until a housekeeping look a minute later. The
// worker's park commit is held back until the enable is done.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { count, fill } from "./_sleepy.ts";
import { holdFirst } from "../../_hold_first.ts";
import { startApp } from "./fixtures.ts";

Deno.test("an entry parked just as its destination is enabled again is delivered at once, not kept", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/relay.kv`;
  const kvA = await Deno.openKv(path);
  const kvB = await Deno.openKv(path);
  const hold = holdFirst(kvA, (key, mutation) => key[0] === "relay_paused" && mutation === "set");
  const app = startApp();
  const options = { allowPrivateNetwork: true, pollMs: 100 };
  const a = createRelay(kvA, options);
  const b = createRelay(kvB, options);
  let worker = null;
  try {
    await fill(kvB, app, 1);
    const [destination] = await b.destinations.list();
    await b.destinations.update(destination.id, { enabled: false });
    worker = a.run({ concurrency: 1 });
    await hold.held; // A read the destination disabled and is about to keep the entry
    await b.destinations.update(destination.id, { enabled: true });
    hold.release();
    await app.waitFor(1, 5_000).catch(() => {});
    await worker.stop();
    assert.equal(app.received.length, 1, "the entry stayed kept though its destination was enabled");
    assert.equal(await count(kvA, ["relay_paused"]), 0, "the entry stayed kept though its destination was enabled");
  } finally {
    hold.release();
    await worker?.stop();
    await a.close();
    await b.close();
    await app.close();
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
});
