// A worker in a process of its own on a local KV file, whose watch does not
// see other processes' commits (docs/relay.md): a destination disabled by
// another process gets no new attempt once a second has passed, as `write`
// sees a change elsewhere within a second; the rest of its entries are kept.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { spawnChild } from "../_child.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const CHILD = new URL("./_worker_child.ts", import.meta.url).pathname;
const N = 40;

/** How many keys are under `prefix`. */
async function count(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}

Deno.test("a worker in another process stops attempting a destination within a second of its disabling", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/relay.kv`;
  const kv = await Deno.openKv(path);
  // A slow app: an attempt a tenth of a second, one at a time, four seconds for them all.
  const app = startApp(() => new Promise((r) => setTimeout(() => r(new Response("ok")), 100)));
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  let child = null;
  try {
    await seedHooks(kv);
    const destination = await relay.destinations.add({ url: app.url });
    await writeAll(kv, relay.write, Array.from({ length: N }, (_, i) => postback("h1", i, "s".repeat(64))), N);
    child = spawnChild(CHILD, [path, "1"], { stdin: true });
    await child.waitFor("ready");
    await app.waitFor(2);
    await relay.destinations.update(destination.id, { enabled: false });
    const disabledAt = performance.now();
    // Its list was worth trusting for a second: attempts begun before then arrive a little later.
    await until(async () => app.received.length + await count(kv, ["relay_paused"]) === N, 20_000, "each sent or kept");
    const late = app.received.filter((r) => r.at > disabledAt + 1_500).length;
    assert.equal(late, 0, `${late} attempts more than 1.5 s after the destination was disabled`);
  } finally {
    await child?.kill();
    await relay.close();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
