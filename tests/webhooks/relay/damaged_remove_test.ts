// A damaged destination record that `list` shows must be one `remove` can clear: the CLI and the console offer
// nothing else. Two shapes were listed yet out of reach: a `null` stored at a destination's key (listed as damaged,
// while `get` said "not there" and `remove` answered `false`, so it stayed listed for ever), and a key whose id part
// is not a string, or that has more parts than a destination's key (listed under `String(key[1])`, an id no call
// can reach; the longer key even took the place of the real destination of that id, disabling it in the list).

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";

async function withRelay(fn: (kv: Deno.Kv, relay: ReturnType<typeof createRelay>) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await fn(kv, relay);
  } finally {
    await relay.close();
    kv.close();
  }
}

/** Stores `value` at `key` as a hand edit would, bumping the version so caches see it. */
async function plant(kv: Deno.Kv, key: Deno.KvKey, value: unknown): Promise<void> {
  await kv.atomic().set(key, value).sum(["relay_destinations_version"], 1n).commit();
}

Deno.test("a null stored at a destination's key: get names it damaged, update refuses it, remove clears it", async () => {
  await withRelay(async (kv, relay) => {
    const { id } = await relay.destinations.add({ url: "http://127.0.0.1:9/null" });
    await plant(kv, ["relay_destination", id], null);
    const listed = (await relay.destinations.list()).find((d) => d.id === id);
    assert.match(listed?.damaged ?? "", /it is null/);
    assert.deepEqual(await relay.destinations.get(id), listed);
    await assert.rejects(() => relay.destinations.update(id, { enabled: true }), TypeError);
    assert.equal((await kv.get(["relay_destination", id])).versionstamp !== null, true, "update left it as it was");
    assert.equal(await relay.destinations.remove(id), true);
    assert.deepEqual(await relay.destinations.list(), []);
    assert.equal((await kv.get(["relay_destination", id])).versionstamp, null);
  });
});

Deno.test("a key no destination id can name is not listed, and does not hide the real destination", async () => {
  await withRelay(async (kv, relay) => {
    const { id } = await relay.destinations.add({ url: "http://127.0.0.1:9/real" });
    await plant(kv, ["relay_destination", 42], { nonsense: 1 });
    await plant(kv, ["relay_destination", id, "extra"], { nonsense: 1 });
    const listed = await relay.destinations.list();
    assert.deepEqual(listed.map((d) => [d.id, d.damaged, d.enabled]), [[id, undefined, true]]);
    assert.equal((await relay.destinations.get(id))?.enabled, true);
  });
});
