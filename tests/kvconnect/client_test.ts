// Deno's own KV Connect client against the test server: every call the
// project uses answers as on a local KV.

import assert from "node:assert/strict";
import { startKvConnectServer } from "../../kvconnect/mod.ts";
import { withRemote } from "./_open.ts";

const keys = (entries: Deno.KvEntry<unknown>[]) => entries.map((e) => e.key);

Deno.test("get, getMany, set and delete round-trip every kind of key and value", async () => {
  await withRemote(async (kv) => {
    const value = {
      text: "é",
      n: 1.5,
      big: 2n ** 70n,
      when: new Date(5),
      bytes: new Uint8Array([0, 1]),
      map: new Map([[1, "a"]]),
    };
    const key: Deno.KvKey = ["s", new Uint8Array([0, 255]), -3n, 2n ** 80n, -0.5, true, false, ""];
    const set = await kv.set(key, value);
    assert.equal(set.ok, true);
    const got = await kv.get(key);
    assert.deepEqual(got, { key, value, versionstamp: set.versionstamp });
    await kv.set(["bytes"], new Uint8Array([7, 8]));
    await kv.set(["u64"], new Deno.KvU64(9n));
    const many = await kv.getMany([["bytes"], ["u64"], ["missing"]]);
    assert.deepEqual(many.map((e) => e.value), [new Uint8Array([7, 8]), new Deno.KvU64(9n), null]);
    assert.equal(many[2].versionstamp, null);
    await kv.delete(key);
    assert.equal((await kv.get(key)).versionstamp, null);
  });
});

Deno.test("list pages with a cursor, forward and reverse, with limits and start/end selectors", async () => {
  await withRemote(async (kv) => {
    for (let i = 0; i < 25; i++) await kv.set(["item", i], i);
    await kv.set(["item"], "the prefix key itself is not listed");
    await kv.set(["item", 3, "child"], "c");
    await kv.set(["other"], 0);
    const all = await Array.fromAsync(kv.list({ prefix: ["item"] }));
    assert.equal(all.length, 26);
    assert.deepEqual(all.slice(3, 5).map((e) => e.key), [["item", 3], ["item", 3, "child"]]);
    for (const reverse of [false, true]) {
      const pages: Deno.KvKey[] = [];
      let cursor: string | undefined;
      for (;;) {
        const iter = kv.list({ prefix: ["item"] }, { limit: 4, cursor, reverse });
        const page = await Array.fromAsync(iter);
        pages.push(...keys(page));
        if (page.length < 4) break;
        cursor = iter.cursor;
      }
      assert.deepEqual(pages, reverse ? keys(all).reverse() : keys(all));
    }
    const range = await Array.fromAsync(kv.list({ start: ["item", 5], end: ["item", 8] }));
    assert.deepEqual(keys(range), [["item", 5], ["item", 6], ["item", 7]]);
    const fromStart = await Array.fromAsync(kv.list({ prefix: ["item"], start: ["item", 23] }));
    assert.deepEqual(keys(fromStart), [["item", 23], ["item", 24]]);
    const toEnd = await Array.fromAsync(kv.list({ prefix: ["item"], end: ["item", 2] }, { reverse: true }));
    assert.deepEqual(keys(toEnd), [["item", 1], ["item", 0]]);
    const smallBatches = await Array.fromAsync(kv.list({ prefix: ["item"] }, { batchSize: 3, reverse: true }));
    assert.deepEqual(keys(smallBatches), keys(all).reverse());
  });
});

Deno.test("atomic checks pass on the current versionstamp and fail on a stale one or a taken key", async () => {
  await withRemote(async (kv) => {
    const first = await kv.set(["a"], 1);
    const second = await kv.set(["a"], 2);
    const stale = await kv.atomic().check({ key: ["a"], versionstamp: first.versionstamp }).set(["a"], 3).commit();
    assert.equal(stale.ok, false);
    const taken = await kv.atomic().check({ key: ["a"], versionstamp: null }).set(["a"], 3).commit();
    assert.equal(taken.ok, false);
    const fresh = await kv.atomic().check({ key: ["a"], versionstamp: second.versionstamp })
      .check({ key: ["b"], versionstamp: null }).set(["a"], 4).set(["b"], 4).commit();
    assert.equal(fresh.ok, true);
    assert.deepEqual((await kv.getMany([["a"], ["b"]])).map((e) => e.value), [4, 4]);
  });
});

Deno.test("sum, min and max act on KvU64 values, and a sum on another value is refused", async () => {
  await withRemote(async (kv) => {
    await kv.atomic().sum(["n"], 5n).commit();
    await kv.atomic().sum(["n"], 2n ** 64n - 1n).commit();
    assert.deepEqual((await kv.get(["n"])).value, new Deno.KvU64(4n));
    await kv.atomic().min(["n"], 2n).max(["m"], 7n).commit();
    assert.deepEqual((await kv.getMany([["n"], ["m"]])).map((e) => e.value), [new Deno.KvU64(2n), new Deno.KvU64(7n)]);
    await kv.set(["s"], "text");
    await assert.rejects(kv.atomic().sum(["s"], 1n).commit(), /U64|64/);
  });
});

Deno.test("versionstamps of commits are strictly ordered and each read returns its writer's", async () => {
  await withRemote(async (kv) => {
    const stamps: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await kv.set(["k", i % 3], i);
      stamps.push(res.versionstamp);
      assert.equal((await kv.get(["k", i % 3])).versionstamp, res.versionstamp);
    }
    assert.deepEqual([...stamps].sort(), stamps);
    assert.equal(new Set(stamps).size, stamps.length);
  });
});

Deno.test("set with expireIn is accepted and stores the value", async () => {
  // A local KV drops expired keys lazily, so when one goes is not observable here; that it is stored is.
  await withRemote(async (kv) => {
    const res = await kv.atomic().set(["long"], 2, { expireIn: 60_000 }).set(["soon"], 3, { expireIn: 1 }).commit();
    assert.equal(res.ok, true);
    assert.equal((await kv.get(["long"])).value, 2);
  });
});

Deno.test("watch delivers the current entries, then each change of a watched key", async () => {
  await withRemote(async (kv) => {
    await kv.set(["w", 1], "one");
    const reader = kv.watch([["w", 1], ["w", 2]]).getReader();
    try {
      const first = await reader.read();
      assert.deepEqual(first.value!.map((e) => e.value), ["one", null]);
      const res = await kv.set(["w", 2], "two");
      let next = await reader.read();
      while (next.value![1].versionstamp !== res.versionstamp) next = await reader.read();
      assert.deepEqual(next.value!.map((e) => e.value), ["one", "two"]);
      await kv.delete(["w", 1]);
      next = await reader.read();
      while (next.value![0].versionstamp !== null) next = await reader.read();
      assert.equal(next.value![0].value, null);
    } finally {
      await reader.cancel();
    }
  });
});

Deno.test("the metadata exchange answers denokv's fields and refuses a wrong token", async () => {
  const server = await startKvConnectServer({ token: "a-token-of-the-test" });
  try {
    const post = (token: string, body: unknown) =>
      fetch(server.url, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const ok = await post(server.token, { supportedVersions: [1, 2, 3] });
    const metadata = await ok.json();
    assert.deepEqual(Object.keys(metadata).sort(), ["databaseId", "endpoints", "expiresAt", "token", "version"]);
    assert.equal(metadata.version, 3);
    assert.deepEqual(metadata.endpoints, [{ url: "/v2", consistency: "strong" }]);
    assert.ok(Date.parse(metadata.expiresAt) > Date.now());
    const wrong = await post("not-the-token-at-all", { supportedVersions: [2] });
    assert.equal(wrong.status, 401);
    assert.equal(await wrong.text(), "Invalid access token.");
    const old = await post(server.token, { supportedVersions: [1] });
    assert.equal(old.status, 400);
    assert.match(await old.text(), /requires protocol version 2 or 3/);
  } finally {
    await server.close();
  }
});

Deno.test("startKvConnectServer() refuses a token shorter than denokv accepts, and serves a file", async () => {
  await assert.rejects(startKvConnectServer({ token: "short" }), TypeError);
  const dir = await Deno.makeTempDir({ prefix: "kvconnect_" });
  try {
    await withRemote(async (kv) => void await kv.set(["kept"], "in the file"), `${dir}/data.kv`);
    const local = await Deno.openKv(`${dir}/data.kv`);
    try {
      assert.equal((await local.get(["kept"])).value, "in the file");
    } finally {
      local.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
