// A request whose claim of a header lapsed (its process stalled past the
// lease) and was taken over by a copy of the postback, then fails and
// releases its claim: the release must leave the copy's claim alone. Deleted,
// a third copy would claim the header afresh and be handed on while the
// second still runs: one postback handled twice more.

import assert from "node:assert/strict";
import { item, post, signA, withReceiver } from "../_receiver.ts";

Deno.test("handle(): a request that lost its lapsed claim to a copy and then fails leaves the copy's claim held", async () => {
  const firstGate = Promise.withResolvers<void>();
  const secondGate = Promise.withResolvers<void>();
  let calls = 0;
  await withReceiver(async ({ receiver, clock }) => {
    const header = await signA();
    const body = JSON.stringify([item()]);
    const first = receiver.handle(post({ authorization: header }, body));
    while (calls === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    clock.now += 1000; // the first request's lease ran out: a copy takes the header over
    const second = receiver.handle(post({ authorization: header }, body));
    while (calls === 1) await new Promise((resolve) => setTimeout(resolve, 1));
    firstGate.reject(new Error("the first request fails")); // and releases the claim it no longer holds
    assert.equal((await first).status, 500);
    const third = await receiver.handle(post({ authorization: header }, body));
    assert.equal(third.status, 409, "a third copy is held while the second runs");
    await third.body?.cancel();
    assert.equal(calls, 2);
    secondGate.resolve();
    assert.equal((await second).status, 200);
  }, {
    claimLeaseMs: 1000,
    onPostback: async () => {
      const n = ++calls;
      if (n === 1) await firstGate.promise;
      if (n === 2) await secondGate.promise;
    },
  });
});
