// A destination whose stored secret is malformed (a KV edited by hand: `add` checks the format) cannot be signed for.
// Its entries' attempts fail with a reason that says so, and the worker goes on delivering to the other destinations.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

Deno.test("a destination with a malformed stored secret fails its attempts, saying so, and the others are delivered", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const other = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    const bad = await relay.destinations.add({ url: other.url });
    const key = ["relay_destination", bad.id];
    const stored = (await kv.get<Record<string, unknown>>(key)).value!;
    await kv.atomic().set(key, { ...stored, secret: "whsec_not*base64" })
      .sum(["relay_destinations_version"], 1n).commit();
    await relay.destinations.list(); // this handle's list is now the edited one

    const worker = relay.run();
    await writeAll(kv, relay.write, [postback("h1", 0)]);
    await app.waitFor(1);
    await writeAll(kv, relay.write, [postback("h1", 1, "q".repeat(64))]);
    await app.waitFor(2);
    assert.equal(other.received.length, 0, "the destination that cannot be signed for is not reached");

    // The bad destination's entries (held, or due again): an attempt failed, saying why, without the secret. Before,
    // the throw escaped the attempt: nothing was recorded, and the entry came due again at each lease's end for good.
    const due = await Array.fromAsync(kv.list<unknown>({ prefix: ["relay_due"] }));
    const ids = due.map((e) => String(e.key.at(-1)));
    let reasons: string[] = [];
    await until(
      async () => {
        const attempts = (await Promise.all(ids.map((id) => relay.attempts(id)))).flat();
        reasons = attempts.filter((a) => a.status !== 200).map((a) => a.error ?? "");
        return reasons.length >= 1;
      },
      5_000,
      "the bad destination's attempt",
    );
    assert.match(reasons[0], /secret/i);
    assert.ok(!reasons[0].includes("not*base64"), "the secret is not shown");
    await worker.stop();
  } finally {
    await relay.close();
    await app.close();
    await other.close();
    kv.close();
  }
});
