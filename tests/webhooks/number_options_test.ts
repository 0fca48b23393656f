// Options that take a number of ms (or bytes), given something else by a library user: a number as a string
// ("5000"), a BigInt, a boxed Number, a one-number array, a Symbol, an object whose toString throws. Each is refused
// with a TypeError that names the option and shows the value as given (a string in quotes), not with a RangeError
// saying "must be a positive number ..., got 5000" of a value that reads as a good number, nor with the error of
// the value's own toString. Nothing reaches the platform and the KV is left as it was.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createReceiver, createWebhooks, signJiveExtn } from "../../webhooks/mod.ts";
import { withCommunity } from "./platform.ts";

/** What a library user might pass where a number goes, and how the refusal must show it (null: anything). */
const notNumbers: fc.Arbitrary<[unknown, string | null]> = fc.oneof(
  fc.integer({ min: 1, max: 2 ** 31 - 1 }).map((n): [unknown, string | null] => [String(n), `"${n}"`]),
  fc.bigInt({ min: 1n, max: 2n ** 40n }).map((n): [unknown, string | null] => [n, null]),
  fc.integer({ min: 1, max: 2 ** 31 - 1 }).map((n): [unknown, string | null] => [[n], "an array"]),
  fc.integer({ min: 1, max: 2 ** 31 - 1 }).map((n): [unknown, string | null] => [new Number(n), "an object"]),
  fc.constant<[unknown, string | null]>([Symbol("five"), null]),
  fc.constant<[unknown, string | null]>([{
    toString() {
      throw new Error("toString was called");
    },
  }, "an object"]),
);

/** Asserts that `refuse` throws (or rejects with) a TypeError naming `name` and showing the value as `shown`. */
async function refusedByName(refuse: () => unknown, name: string, value: unknown, shown: string | null) {
  // (The value is never turned into a string here: one of them throws when it is.)
  let error: unknown;
  try {
    await refuse();
  } catch (caught) {
    error = caught;
  }
  assert.ok(error instanceof TypeError, `${typeof value} as '${name}': ${error}`);
  assert.ok(error.message.includes(`'${name}'`), `the refusal does not name '${name}': ${error.message}`);
  if (shown !== null) assert.ok(error.message.endsWith(`got ${shown}`), `shown otherwise: ${error.message}`);
}

Deno.test("createWebhooks() refuses a timeout that is not a number with a TypeError naming it", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await fc.assert(
      fc.asyncProperty(notNumbers, async ([value, shown]) => {
        await refusedByName(() => createWebhooks(kv, { timeout: value as never }), "timeout", value, shown);
      }),
      { numRuns: 60 },
    );
  } finally {
    kv.close();
  }
});

Deno.test("createReceiver() refuses maxBytes, maxItems, bodyTimeoutMs or claimLeaseMs not a number by name", async () => {
  await withCommunity(async (hooks) => {
    const names = fc.constantFrom("maxBytes", "maxItems", "bodyTimeoutMs", "claimLeaseMs");
    await fc.assert(
      fc.asyncProperty(names, notNumbers, async (name, [value, shown]) => {
        await refusedByName(() => createReceiver(hooks, { onPostback: () => {}, [name]: value }), name, value, shown);
      }),
      { numRuns: 60 },
    );
  });
});

Deno.test("signJiveExtn() refuses a timestamp that is not a number with a TypeError naming it", async () => {
  await fc.assert(
    fc.asyncProperty(notNumbers, async ([value, shown]) => {
      const params = { clientId: "client-1", jiveUrl: "https://c.example", tenantId: "t1", timestamp: value };
      await refusedByName(() => signJiveExtn(params as never, "c2VjcmV0"), "timestamp", value, shown);
    }),
    { numRuns: 60 },
  );
});

Deno.test("reconcile() refuses a staleAfter that is not a number by name, before asking the platform", async () => {
  await withCommunity(async (hooks, platform, community, kv) => {
    const before: unknown[] = [];
    for await (const entry of kv.list({ prefix: [] })) before.push([entry.key, entry.value]);
    await fc.assert(
      fc.asyncProperty(notNumbers, fc.boolean(), async ([value, shown], fix) => {
        await refusedByName(
          () => hooks.reconcile(community, { staleAfter: value as never, fix }),
          "staleAfter",
          value,
          shown,
        );
      }),
      { numRuns: 60 },
    );
    assert.equal(platform.seen.length, 0, "a refused reconcile reached the platform");
    const after: unknown[] = [];
    for await (const entry of kv.list({ prefix: [] })) after.push([entry.key, entry.value]);
    assert.deepEqual(after, before);
  });
});
