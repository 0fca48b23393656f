// The delivery-time address guard resolves a destination's host name: a
// resolver that never answers must not hold an attempt past its time (the
// lease allows an attempt `attemptTimeoutMs`, so a longer one could let a
// second worker send a copy). `Deno.resolveDns` is replaced for the test.

import assert from "node:assert/strict";
import { createRelay, type RelayForward } from "../../../webhooks/mod.ts";
import { postback, seedHooks, until, writeAll } from "./fixtures.ts";

Deno.test("an attempt whose host name never resolves ends within attemptTimeoutMs, as a failed attempt", async () => {
  const realResolve = Deno.resolveDns;
  let hang = false;
  const lookups: string[] = [];
  // A public address while the destination is added; then a resolver that never answers.
  const stub = (host: string, type: string) => {
    lookups.push(`${host} ${type}`);
    if (hang) return new Promise<never>(() => {});
    return Promise.resolve(type === "A" ? ["93.184.216.34"] : []);
  };
  Object.assign(Deno, { resolveDns: stub });
  const kv = await Deno.openKv(":memory:");
  const fetched: string[] = [];
  const relay = createRelay(kv, {
    attemptTimeoutMs: 300,
    leaseMs: 5_000,
    fetch: (input: string | URL | Request) => {
      fetched.push(String(input));
      return Promise.resolve(new Response("ok"));
    },
  });
  const worker = relay.run();
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: "http://slow-dns.example/hooks" });
    hang = true;
    await writeAll(kv, relay.write, [postback("h1", 0)]);
    let forward: RelayForward | undefined;
    await until(
      async () => {
        [forward] = await relay.forwards("p".repeat(64));
        return forward !== undefined && forward.attempts === 1;
      },
      10_000,
      "the attempt (a lookup left hanging would never end it)",
    );
    const [attempt] = await relay.attempts(forward!.entryId);
    assert.equal(attempt.status, 0);
    assert.match(attempt.error ?? "", /slow-dns\.example.*not found within 0\.3 s/);
    assert.equal(forward!.state, "pending", "a retry is scheduled, the entry is not lost");
    assert.ok(forward!.nextAttemptAt !== null);
    assert.deepEqual(fetched, [], "nothing was sent to a host that was never checked");
    assert.ok(lookups.some((l) => l.startsWith("slow-dns.example")));
  } finally {
    await worker.stop();
    await relay.close();
    kv.close();
    Object.assign(Deno, { resolveDns: realResolve });
  }
});
