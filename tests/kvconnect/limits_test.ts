// denokv's limits, each refused as denokv refuses it: status 400 and
// denokv's message, with a request at the limit accepted. Through Deno's own
// client where it sends the request (checks: the client allows 100), by hand
// where the client refuses first.

import assert from "node:assert/strict";
import { DENOKV_MESSAGES as MESSAGES, encodeKey, startKvConnectServer } from "../../kvconnect/mod.ts";
import { withRemote } from "./_open.ts";
import { type RawClient, rawClient } from "./_raw.ts";

const VE_BYTES = 3;
const M_SET = 1;

async function withRaw(fn: (raw: RawClient) => Promise<void>): Promise<void> {
  const server = await startKvConnectServer();
  try {
    await fn(await rawClient(server));
  } finally {
    await server.close();
  }
}

const set = (key: Uint8Array, size = 1) => ({
  key,
  value: { data: new Uint8Array(size), encoding: VE_BYTES },
  mutationType: M_SET,
});

/** Posts `atMost` (accepted) and `over` (refused with `message`). */
async function limit(
  raw: RawClient,
  endpoint: "snapshot_read" | "atomic_write" | "watch",
  atMost: Record<string, unknown>,
  over: Record<string, unknown>,
  message: string,
): Promise<void> {
  const ok = await raw.post(endpoint, atMost);
  assert.equal(ok.status, 200, `at the limit: ${ok.text}`);
  const refused = await raw.post(endpoint, over);
  assert.equal(refused.status, 400);
  assert.equal(refused.text, message);
}

Deno.test("an atomic operation with 11 checks is refused through Deno's client, with 10 committed", async () => {
  await withRemote(async (kv) => {
    const op = (n: number) => {
      const atomic = kv.atomic();
      for (let i = 0; i < n; i++) atomic.check({ key: ["c", i], versionstamp: null });
      return atomic.set(["done", n], true);
    };
    assert.equal((await op(10).commit()).ok, true);
    await assert.rejects(op(11).commit(), (error: Error) => {
      assert.match(error.message, /status=400/);
      assert.ok(error.message.endsWith(MESSAGES.tooManyChecks), error.message);
      return true;
    });
    assert.equal((await kv.get(["done", 11])).versionstamp, null);
  });
});

Deno.test("checks, mutations and enqueues are counted as denokv counts them", async () => {
  await withRaw(async (raw) => {
    const checks = (n: number) => Array.from({ length: n }, (_, i) => ({ key: encodeKey(["c", i]) }));
    await limit(raw, "atomic_write", { checks: checks(10) }, { checks: checks(11) }, MESSAGES.tooManyChecks);
    const sets = (n: number) => Array.from({ length: n }, (_, i) => set(encodeKey(["m", i])));
    await limit(raw, "atomic_write", { mutations: sets(1000) }, { mutations: sets(1001) }, MESSAGES.tooManyMutations);
    // An enqueue counts as a mutation.
    const payload = new Uint8Array([0xff, 0x0f, 0x49, 0x02]); // V8 for the number 1
    await limit(
      raw,
      "atomic_write",
      { mutations: sets(999), enqueues: [{ payload, deadlineMs: Date.now() }] },
      { mutations: sets(1000), enqueues: [{ payload, deadlineMs: Date.now() }] },
      MESSAGES.tooManyMutations,
    );
  });
});

Deno.test("an atomic write of more than 819,200 bytes of keys and values is refused", async () => {
  await withRaw(async (raw) => {
    // Thirteen values of 60,000 bytes and a last one sized against the limit.
    const keys = Array.from({ length: 14 }, (_, i) => encodeKey(["big", i]));
    const keyBytes = keys.reduce((sum, key) => sum + key.length, 0);
    const mutations = (last: number) => keys.map((key, i) => set(key, i < 13 ? 60_000 : last));
    const denokvMax = 819_200 - keyBytes - 13 * 60_000;
    // denokv counts each key once: one byte more than 819,200 is refused with its message. Deno's own client
    // and the local KV count keys twice, so the largest write they take (and the server commits) is that
    // much smaller; denokv's band between the two is unreachable through Deno's client.
    await limit(
      raw,
      "atomic_write",
      { mutations: mutations(denokvMax - keyBytes) },
      { mutations: mutations(denokvMax + 1) },
      MESSAGES.atomicWriteTooLarge,
    );
  });
});

Deno.test("keys of more than 2,048 bytes and values of more than 65,536 bytes are refused", async () => {
  await withRaw(async (raw) => {
    const key = (size: number) => encodeKey(["x".repeat(size - 2)]);
    assert.equal(key(2048).length, 2048);
    await limit(
      raw,
      "atomic_write",
      { mutations: [set(key(2048))] },
      { mutations: [set(key(2049))] },
      MESSAGES.keyTooLong,
    );
    await limit(
      raw,
      "atomic_write",
      { mutations: [set(key(10), 65_536)] },
      { mutations: [set(key(10), 65_537)] },
      MESSAGES.valueTooLong,
    );
    // A read or a check may name a key one byte longer, as in denokv.
    const range = (size: number) => ({ ranges: [{ start: key(size), end: key(size + 1), limit: 1 }] });
    await limit(raw, "snapshot_read", range(2048), range(2049), MESSAGES.keyTooLong);
  });
});

Deno.test("a read of more than 10 ranges or 1,000 entries, or a limit of 0, is refused", async () => {
  await withRaw(async (raw) => {
    const ranges = (n: number, each = 1) =>
      Array.from({ length: n }, (_, i) => ({ start: encodeKey(["r", i]), end: encodeKey(["r", i + 1]), limit: each }));
    await limit(raw, "snapshot_read", { ranges: ranges(10) }, { ranges: ranges(11) }, MESSAGES.tooManyReadRanges);
    await limit(
      raw,
      "snapshot_read",
      { ranges: [...ranges(1, 500), ...ranges(1, 500)] },
      { ranges: [...ranges(1, 500), ...ranges(1, 501)] },
      MESSAGES.readRangeTooLarge,
    );
    await limit(
      raw,
      "snapshot_read",
      { ranges: ranges(1, 1) },
      { ranges: ranges(1, 0) },
      MESSAGES.invalidReadRangeLimit,
    );
  });
});

Deno.test("a watch of more than 10 keys is refused", async () => {
  await withRaw(async (raw) => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => ({ key: encodeKey(["w", i]) }));
    await limit(raw, "watch", { keys: keys(10) }, { keys: keys(11) }, MESSAGES.tooManyWatchedKeys);
  });
});

Deno.test("a check's versionstamp must be 10 bytes or empty, and a data path request needs the token", async () => {
  await withRaw(async (raw) => {
    const check = (size: number) => ({ checks: [{ key: encodeKey(["v"]), versionstamp: new Uint8Array(size) }] });
    const refused = await raw.post("atomic_write", check(9));
    assert.deepEqual([refused.status, refused.text], [400, MESSAGES.invalidVersionstamp]);
    // Ten zero bytes: a versionstamp no entry has, so the check fails rather than being refused.
    assert.equal((await raw.post("atomic_write", check(10))).status, 200);
  });
  const server = await startKvConnectServer();
  try {
    const answer = await fetch(`${server.url}/v2/snapshot_read`, {
      method: "POST",
      headers: { authorization: "Bearer wrong-token-wrong", "x-denokv-version": "3" },
      body: new Uint8Array(),
    });
    assert.deepEqual([answer.status, await answer.text()], [401, "Invalid access token."]);
  } finally {
    await server.close();
  }
});
