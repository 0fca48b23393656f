import assert from "node:assert/strict";
import { startKvConnectServer } from "../../kvconnect/mod.ts";
Deno.test("smoke", async () => {
  const server = await startKvConnectServer();
  Deno.env.set("DENO_KV_ACCESS_TOKEN", server.token);
  const kv = await Deno.openKv(server.url);
  try {
    const r = await kv.set(["a"], { x: new Uint8Array([1, 2]), d: new Date(5), m: new Map([[1, 2n]]) });
    console.log(r);
    console.log(await kv.get(["a"]));
    await kv.set(["b", 1n], new Uint8Array([9]));
    await kv.set(["b", 2n], 3);
    await kv.set(["b", 2n, "c"], 4);
    await kv.set(["c"], new Deno.KvU64(5n));
    console.log(await kv.getMany([["a"], ["b", 1n], ["zz"]]));
    const all = await Array.fromAsync(kv.list({ prefix: [] }));
    console.log(all.map((e) => e.key));
    console.log((await Array.fromAsync(kv.list({ prefix: ["b"] }, { reverse: true }))).map((e) => e.key));
    const it = kv.list({ prefix: [] }, { limit: 2 });
    const page1 = await Array.fromAsync(it);
    const page2 = await Array.fromAsync(kv.list({ prefix: [] }, { cursor: it.cursor }));
    console.log(page1.map((e) => e.key), page2.map((e) => e.key));
    await kv.atomic().sum(["c"], 3n).commit();
    console.log(await kv.get(["c"]));
    const res = await kv.atomic().check({ key: ["a"], versionstamp: null }).set(["a"], 1).commit();
    assert.equal(res.ok, false);
    const stream = kv.watch([["w"]]);
    const reader = stream.getReader();
    console.log("w1", await reader.read());
    await kv.set(["w"], "x");
    console.log("w2", await reader.read());
    await reader.cancel();
    const checks = kv.atomic();
    for (let i = 0; i < 11; i++) checks.check({ key: ["k", i], versionstamp: null });
    await assert.rejects(checks.commit(), (e) => {
      console.log(String(e));
      return true;
    });
  } finally {
    kv.close();
    await server.close();
  }
});
