// API.md: relay.write(postback, atomic) is "usable as `write` or inside one", so a library user may hand it a postback
// built or changed by hand. One whose activity is not an object, or whose receivedAt is not a time, was written as an
// entry that no worker takes (it is passed over as junk): never sent, never a dead letter, `pending` in forwards()
// for good. One whose index is "0" was sent, but forwards(postbackId, 0) never finds it; one without an index made
// the caller's whole commit fail with KV's own words; one without a community threw "Cannot read properties of
// undefined". Each is refused by relay.write with a TypeError naming the field, adding nothing to the commit.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until } from "./fixtures.ts";

/** Every key and value in the KV, to show that a refused write added nothing. */
async function everything(kv: Deno.Kv): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const entry of kv.list({ prefix: [] })) out.push([entry.key, entry.value]);
  return out;
}

/** A field of a postback and values of it that no receiver hands on. */
const BAD: fc.Arbitrary<[string, unknown]> = fc.oneof(
  fc.constantFrom<unknown>(undefined, "0", "1", Number.NaN, -1, 0.5, Infinity, null, 1n).map((
    v,
  ): [string, unknown] => ["index", v]),
  fc.constantFrom<unknown>("jive:created", null, 42, ["a"], undefined).map((v): [string, unknown] => ["activity", v]),
  fc.constantFrom<unknown>(Number.NaN, undefined, "yesterday", null, Infinity).map((
    v,
  ): [string, unknown] => ["receivedAt", v]),
  fc.constantFrom<unknown>(undefined, null, "t1", {}, { tenantId: 7 }).map((v): [string, unknown] => ["community", v]),
);

Deno.test("relay.write() refuses a postback whose index, activity, receivedAt or community is wrong, by name", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    const before = await everything(kv);
    await fc.assert(
      fc.asyncProperty(BAD, fc.boolean(), async ([field, value], own) => {
        const good = postback("h1");
        const fields = { ...good, postbackId: good.postbackId, index: good.index, count: good.count };
        const bad = { ...fields, [field]: value } as never;
        const atomic = kv.atomic();
        if (own) atomic.set(["app", "log"], "the caller's own write");
        assert.throws(
          () => relay.write(bad, atomic),
          (error: Error) => error instanceof TypeError && error.message.includes(`'postback.${field}'`),
        );
        // The caller may still commit its own writes: nothing of the relay is in them.
        assert.equal((await atomic.commit()).ok, true);
        if (own) await kv.delete(["app", "log"]);
        assert.deepEqual(await everything(kv), before);
      }),
      { numRuns: 80 },
    );
    // A postback as a receiver hands it on is written as before, and sent.
    const atomic = kv.atomic();
    relay.write(postback("h1", 0, "g".repeat(64)), atomic);
    assert.equal((await atomic.commit()).ok, true);
    const worker = relay.run();
    try {
      await app.waitFor(1);
      await until(async () => (await relay.forwards("g".repeat(64), 0))[0]?.state === "delivered");
    } finally {
      await worker.stop();
    }
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});
