// close() while a commit is in flight: the answer is sent before the connection is cut, so the client learns its
// commit landed rather than retrying against a closed port for good. A real server, Deno.openKv over KV Connect;
// the latency only holds the commit in flight, and the 10 s bound is generous, not a timing test. Its token is the one
// every module of the process sets (token.ts).
import assert from "node:assert/strict";
import { startKvConnectServer } from "../../kvconnect/mod.ts";
import { TEST_TOKEN } from "./token.ts";

Deno.test("close: a commit in flight when close() is called gets its answer", async () => {
  const server = await startKvConnectServer({ token: TEST_TOKEN, latencyMs: 300 });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", server.token);
  const kv = await Deno.openKv(server.url);
  try {
    await kv.get(["warm"]);
    const write = kv.set(["a"], 1).then((r) => `ok: ${r.ok}`, (e) => `failed: ${(e as Error).message}`);
    await new Promise((r) => setTimeout(r, 100)); // the commit reached the server, which holds it 300 ms
    await server.close();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      write,
      new Promise((r) => timer = setTimeout(() => r("no answer after 10 s"), 10_000)),
    ]);
    clearTimeout(timer);
    assert.equal(outcome, "ok: true");
  } finally {
    kv.close();
  }
});
