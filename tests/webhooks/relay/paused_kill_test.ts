// A process killed (SIGKILL) while it enables a destination, between the
// commits that move its kept entries back to the outbox: every entry is
// then either still kept or back in the outbox, never both and never
// neither, and a worker started afterwards (its housekeeping) finishes the
// move and delivers each entry once.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { spawnChild } from "../_child.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const CHILD = new URL("./_enable_child.ts", import.meta.url).pathname;
const N = 300;

/** The entry ids under `prefix`, their id at `at` in the key. */
async function idsUnder(kv: Deno.Kv, prefix: Deno.KvKey, at: number): Promise<string[]> {
  const ids: string[] = [];
  for await (const entry of kv.list({ prefix })) ids.push(entry.key[at] as string);
  return ids;
}

Deno.test("a process killed mid-enable leaves each kept entry kept or back in the outbox, and a worker then delivers each once", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/relay.kv`;
  const kv = await Deno.openKv(path);
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 50 });
  let child = null;
  try {
    await seedHooks(kv);
    const destination = await relay.destinations.add({ url: app.url });
    await new Promise((r) => setTimeout(r, 100)); // the writer's list reloads after the add
    const postbacks = Array.from({ length: N }, (_, i) => postback("h1", i, (i % 30).toString().padStart(64, "0")));
    await writeAll(kv, relay.write, postbacks, 50);
    const written = await idsUnder(kv, ["relay_due"], 3);
    assert.equal(written.length, N);
    await relay.destinations.update(destination.id, { enabled: false });
    const parking = relay.run({ concurrency: 16 });
    await until(async () => (await idsUnder(kv, ["relay_paused"], 2)).length === N, 20_000, "every entry kept");
    await parking.stop();

    // The destination's own commit, then some of the moves (ten entries each); the child holds the next commit
    // until killed: it makes the other 25 moves in about 600 ms, and a test process that late found them all made.
    child = spawnChild(CHILD, [path, destination.id, "6"]);
    await child.waitFor("ready");
    await child.waitFor("commit 6");
    await child.kill();
    const kept = await idsUnder(kv, ["relay_paused"], 2);
    const due = await idsUnder(kv, ["relay_due"], 3);
    assert.ok(kept.length > 0 && kept.length < N, `${kept.length} of ${N} still kept: the kill was not mid-move`);
    assert.equal(kept.length + due.length, N, `${kept.length} kept and ${due.length} in the outbox`);
    assert.deepEqual(new Set([...kept, ...due]), new Set(written), "an entry was lost or made twice");
    assert.equal(app.received.length, 0); // nothing went out while the move was cut short

    const later = createRelay(kv, { allowPrivateNetwork: true, pollMs: 50 }); // another process, after the crash
    const worker = later.run({ concurrency: 16 });
    try {
      await app.waitFor(N, 30_000);
      await until(async () => (await idsUnder(kv, ["relay_paused"], 2)).length === 0, 10_000, "nothing kept");
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await worker.stop();
      await later.close();
    }
    assert.equal(app.received.length, N, "an entry was delivered twice");
    assert.deepEqual(new Set(app.received.map((r) => r.id)), new Set(written));
  } finally {
    await child?.kill();
    await relay.close();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
