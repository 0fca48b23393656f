// A rotation entry (["community_secret_previous", tenantId]) edited by hand into junk: a receiver never takes the
// previous secret on a time it cannot read (it would verify for as long as the entry stays), and secretRotation()
// answers null rather than throwing; the entry is left as it is.

import assert from "node:assert/strict";
import fc from "fast-check";
import { item, NOW, post, SECRET_A, SIGN_A, signA, withReceiver } from "../_receiver.ts";

const NEW_SECRET = btoa("community A's new client secret!");
const KEY: Deno.KvKey = ["community_secret_previous", "tenant-a"];

/** What a hand edit could leave as the entry's `validUntil` (or `rotatedAt`): no time a `Date` can hold. */
const junkTime = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant(Number.NaN),
  fc.constantFrom(Infinity, -Infinity, 1e300, -1e300),
  fc.string({ maxLength: 8 }),
  fc.constant({}),
  fc.boolean(),
);

Deno.test("receiver: a previous secret whose validUntil was edited into junk verifies no postback", async () => {
  await fc.assert(
    fc.asyncProperty(junkTime, async (validUntil) => {
      await withReceiver(async ({ hooks, kv, receiver, clock, delivered }) => {
        const stored = (await hooks.communities.findByTenantID("tenant-a"))!;
        await hooks.communities.save({ ...stored, clientSecret: NEW_SECRET });
        const entry = (await kv.get<Record<string, unknown>>(KEY)).value!;
        await kv.set(KEY, { ...entry, validUntil });
        // A day after the rotation, a postback signed (then) with the old secret.
        clock.now = NOW + 86_400_000;
        const header = await signA(clock.now, SIGN_A, SECRET_A);
        const answer = await receiver.handle(post({ authorization: header }, JSON.stringify([item()])));
        await answer.body?.cancel();
        assert.equal(answer.status, 401);
        assert.equal(delivered.length, 0);
        assert.deepEqual((await kv.get(KEY)).value, { ...entry, validUntil });
      });
    }),
    { numRuns: 20 },
  );
});

Deno.test("secretRotation() answers null for a rotation entry edited into junk, and leaves it", async () => {
  const entry = fc.oneof(
    fc.integer(),
    fc.string({ maxLength: 8 }),
    fc.constant([]),
    fc.record({ secret: fc.constant(SECRET_A), rotatedAt: junkTime, validUntil: fc.constant(NOW) }, {
      noNullPrototype: true,
    }),
    fc.record({ secret: fc.constant(SECRET_A), rotatedAt: fc.constant(NOW), validUntil: junkTime }, {
      noNullPrototype: true,
    }),
  );
  await fc.assert(
    fc.asyncProperty(entry, async (value) => {
      await withReceiver(async ({ hooks, kv }) => {
        await kv.set(KEY, value);
        assert.equal(await hooks.communities.secretRotation("tenant-a"), null);
        assert.deepEqual((await kv.get(KEY)).value, value);
      });
    }),
    { numRuns: 30 },
  );
});
