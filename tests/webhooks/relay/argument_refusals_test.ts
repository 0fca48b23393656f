// Bad arguments of the relay that no other test passed (API.md: "Wrong values are a TypeError or RangeError that
// names them"): createRelay's options, add's argument and secret, update's patch. Each is refused by name and the
// KV is left as it was.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";

const URL_OK = "https://app.example/hooks";

/** Every key and value in the KV, to show that a refused call changed nothing. */
async function everything(kv: Deno.Kv): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const entry of kv.list({ prefix: [] })) out.push([entry.key, entry.value]);
  return out;
}

Deno.test("createRelay() refuses options that are not an object with a TypeError naming them", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    for (const options of [null, "fast", 5]) {
      assert.throws(
        () => createRelay(kv, options as never),
        (error: Error) =>
          error instanceof TypeError && /Cannot create relay: 'options' must be an object/.test(error.message),
      );
    }
  } finally {
    kv.close();
  }
});

Deno.test("createRelay() refuses a schedule of more than 100 waits with a RangeError that says how many", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    assert.throws(
      () => createRelay(kv, { schedule: Array(101).fill(1000) }),
      (error: Error) =>
        error instanceof RangeError && /'schedule' may hold at most 100 waits, got 101/.test(error.message),
    );
    createRelay(kv, { schedule: Array(100).fill(1000) }); // the limit itself is taken
  } finally {
    kv.close();
  }
});

Deno.test("destinations.add() refuses an argument that is not an object and a secret that is not a string", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const relay = createRelay(kv);
    for (const input of [null, URL_OK, 1]) {
      await assert.rejects(
        relay.destinations.add(input as never),
        (error: Error) =>
          error instanceof TypeError &&
          /Cannot add destination: the argument must be an object/.test(error.message),
      );
    }
    for (const secret of [12345, null, ["whsec_x"]]) {
      await assert.rejects(
        relay.destinations.add({ url: URL_OK, secret } as never),
        (error: Error) =>
          error instanceof TypeError && /Cannot add destination: 'secret' must be a string, got /.test(error.message),
      );
    }
    assert.deepEqual(await relay.destinations.list(), []);
    assert.deepEqual(await everything(kv), []);
  } finally {
    kv.close();
  }
});

Deno.test("destinations.update() refuses a patch that is not an object with a TypeError, changing nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const relay = createRelay(kv);
    const added = await relay.destinations.add({ url: URL_OK });
    const before = await everything(kv);
    for (const patch of [null, "disable", false]) {
      await assert.rejects(
        relay.destinations.update(added.id, patch as never),
        (error: Error) =>
          error instanceof TypeError && /Cannot update destination: 'patch' must be an object/.test(error.message),
      );
    }
    assert.deepEqual(await everything(kv), before);
    assert.equal((await relay.destinations.get(added.id))?.enabled, true);
  } finally {
    kv.close();
  }
});

Deno.test("relay.write() refuses what is not a receiver's postback, adding nothing to the commit", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await relay.destinations.add({ url: "http://127.0.0.1:9/hooks" });
    const before = await everything(kv);
    for (const postback of [null, {}, { webhook: { id: "h1" } }, { webhook: { id: 1 }, postbackId: "p" }]) {
      const atomic = kv.atomic();
      assert.throws(
        () => relay.write(postback as never, atomic),
        new TypeError("Cannot write to the relay: 'postback' must be a postback of a receiver"),
      );
      assert.equal((await atomic.commit()).ok, true);
    }
    assert.deepEqual(await everything(kv), before);
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("relay.redeliver() refuses an entry id that is not a non-empty string with a TypeError", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv);
  try {
    for (const id of ["", null, 42]) {
      await assert.rejects(
        relay.redeliver(id as never),
        (error: Error) =>
          error instanceof TypeError && /Cannot redeliver: 'entryId' must be a non-empty string/.test(error.message),
      );
    }
    assert.deepEqual(await everything(kv), []);
  } finally {
    await relay.close();
    kv.close();
  }
});
