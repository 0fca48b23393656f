// A request whose claim of a header lapsed (its process stalled past the
// lease) and was taken over by a copy of the postback, then fails and
// releases its claim: the release must leave the copy's claim alone. Deleted,
// a third copy would claim the header afresh and be delivered while the
// second still runs: one postback handled twice.

import assert from "node:assert/strict";
import { claim, claimOf, type HeldClaim, release } from "../../../webhooks/receiver/claim/mod.ts";

Deno.test("releasing a claim another request took over after its lease lapsed leaves the other's claim held", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { keys } = claimOf("d".repeat(64), ["https://c.example/w/1"], 1_700_000_000_000);
    const [leaseMs, expireIn] = [1_000, 600_000];
    const start = Date.now();
    const first = await claim(kv, keys, start, leaseMs, expireIn);
    assert.equal(typeof first, "object");
    // Past the first request's lease: a copy takes the header over.
    const second = await claim(kv, keys, start + leaseMs + 1, leaseMs, expireIn);
    assert.equal(typeof second, "object", "the copy takes over a lapsed claim");
    // The first request fails now and releases the claim it no longer holds.
    await release(kv, first as HeldClaim);
    assert.equal(await claim(kv, keys, start + leaseMs + 2, leaseMs, expireIn), "held", "a third copy claims anew");
  } finally {
    kv.close();
  }
});
