// A worker confirms its list of destinations before an attempt once the list
// is a second old. When that reload fails (the KV answers an error), the
// list it has is the one it could not confirm: it must not attempt by it (a
// destination disabled or removed meanwhile would get the postback), but
// leave the entry to be taken again when its lease ends.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, writeAll } from "./fixtures.ts";

const VERSION_KEY: Deno.KvKey = ["relay_destinations_version"];
const TAKE_KEY: Deno.KvKey = ["relay_take", "*"];

/** Makes `kv.get` of the destinations' version fail while `failing.on`. */
function failVersionReads(kv: Deno.Kv): { on: boolean } {
  const failing = { on: false };
  const get = kv.get.bind(kv);
  kv.get = (<T>(key: Deno.KvKey, options?: { consistency?: Deno.KvConsistencyLevel }) => {
    if (failing.on && key.length === 1 && key[0] === VERSION_KEY[0]) {
      return Promise.reject(new Error("The KV failed (test)"));
    }
    return get<T>(key, options);
  }) as Deno.Kv["get"];
  return failing;
}

/** Resolves once the shared partition's take counter has moved `n` times from now on. */
async function takes(kv: Deno.Kv, n: number): Promise<void> {
  let first: string | null | undefined;
  let moved = 0;
  for await (const [entry] of kv.watch([TAKE_KEY])) {
    if (first === undefined) first = entry.versionstamp;
    else if (++moved >= n) return;
  }
}

Deno.test("a worker whose reload of the destination list fails does not attempt by the list it could not confirm", async () => {
  const kv = await Deno.openKv(":memory:");
  const failing = failVersionReads(kv);
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true, attemptTimeoutMs: 1_000, leaseMs: 2_000 });
  try {
    await seedHooks(kv);
    const destination = await relay.destinations.add({ url: app.url });
    await writeAll(kv, relay.write, [postback("h1")]);
    // Disabled here; the reload that follows fails, so this process's list still has it enabled.
    failing.on = true;
    await relay.destinations.update(destination.id, { enabled: false });
    const worker = relay.run({ concurrency: 1 });
    // The entry taken, its lease run out (no attempt made by an unconfirmed list), and taken again; or attempted.
    const outcome = await Promise.race([takes(kv, 2).then(() => "retaken"), app.waitFor(1).then(() => "attempted")]);
    assert.equal(outcome, "retaken", "the worker attempted a disabled destination by a list whose reload failed");
    assert.equal(app.received.length, 0);
    failing.on = false;
    await worker.stop();
  } finally {
    failing.on = false;
    await relay.close();
    await app.close();
    kv.close();
  }
});
