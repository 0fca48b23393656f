// A request whose claim lapsed (its process stalled past the lease) and was
// taken over by a copy keeps renewing a lease it no longer holds: the renewal
// must not write over the copy's claim. Written over, the copy that handed
// the postback on cannot mark it done, and the header stays pending on the
// stalled request: should that process die, a later copy is handed on again.

import assert from "node:assert/strict";
import { item, post, signA, withReceiver } from "../_receiver.ts";

/** The claim's lease: renewed every third of it, a second here, long past the copy's takeover on a busy machine. */
const LEASE_MS = 3000;

Deno.test("handle(): a stalled request's lease renewal leaves the claim a copy took over from it, which is marked done", async () => {
  const stalled = Promise.withResolvers<void>();
  let calls = 0;
  await withReceiver(async ({ receiver, clock }) => {
    const header = await signA();
    const body = JSON.stringify([item()]);
    const first = receiver.handle(post({ authorization: header }, body));
    while (calls === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    clock.now += LEASE_MS; // the first request's lease ran out: a copy takes the header over and hands it on
    const second = await receiver.handle(post({ authorization: header }, body));
    assert.deepEqual(await second.json(), { received: 1 });
    // The stalled request's renewal comes due (a third of the lease): it no longer holds the claim.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 3 + 400));
    clock.now += LEASE_MS;
    const third = await receiver.handle(post({ authorization: header }, body));
    assert.deepEqual(await third.json(), { received: 0, duplicate: true }, "the copy's claim was marked done");
    assert.equal(calls, 2);
    stalled.resolve();
    await (await first).body?.cancel();
  }, {
    claimLeaseMs: LEASE_MS,
    onPostback: async () => {
      if (++calls === 1) await stalled.promise;
    },
  });
});
