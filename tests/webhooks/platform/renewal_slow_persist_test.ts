// One shared renewal of a community's stored tokens, met by three calls at once: one without a
// tokenPersistenceFunction, one whose function throws, one whose function is slow. Each call stores the pair by its
// own rule; the throwing one fails alone, and the slow one holds back no other call.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { expiredCommunityOf, tokenEndpointAfterRefusals, withPlatform } from "../platform.ts";

const PLACE = "https://c.example/api/core/v3/places/42";
/** The call time-out of these tests. */
const TIMEOUT = 1_000;

Deno.test("one shared renewal: a persistence function that throws fails its own call only, a slow one holds back none other", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: TIMEOUT });
    await hooks.communities.save(expiredCommunityOf(platform));
    tokenEndpointAfterRefusals(platform, 3);
    // The slow persistence function ends once the plain call has ended, or gives way after 10 s (a plain call that
    // waits for it ends only then): which came first is an order of events, not a time a loaded machine can stretch.
    const plainEnded = Promise.withResolvers<void>();
    let gaveWay = false;
    let plainWaited: boolean | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slow = () =>
      Promise.race([plainEnded.promise, new Promise<void>((resolve) => timer = setTimeout(resolve, 10_000))])
        .then(() => {
          clearTimeout(timer);
          gaveWay = plainWaited === undefined;
        });
    const results = await Promise.allSettled([
      hooks.register("Acme", ["document"], PLACE, "https://me.example/a").finally(() => {
        plainWaited = gaveWay;
        plainEnded.resolve();
      }),
      hooks.register("Acme", ["document"], PLACE, "https://me.example/b", null, null, () => {
        throw new Error("cannot persist");
      }),
      hooks.register("Acme", ["document"], PLACE, "https://me.example/c", null, null, slow),
    ]);
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled"]);
    assert.equal((results[1] as PromiseRejectedResult).reason.message, "cannot persist");
    assert.equal(plainWaited, false, "the plain call waited for another call's persistence function");
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    assert.deepEqual((await hooks.communities.findByTenantID("tenant-acme"))?.oauth, platform.issued[0]);
  }, { tokens: [] });
});
