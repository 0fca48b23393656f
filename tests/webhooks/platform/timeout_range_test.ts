// createWebhooks' `timeout` (docs/webhooks.md: "Every platform call fails after `timeout` ms (default 30 s)") is a
// timer's delay: one past 2^31-1 ms (about 24.8 days) does not fit, and the timer fired at once, so every platform call
// failed "no answer within 3000000000 ms" within a millisecond. It is refused as the relay refuses its own times.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, withKv, withPlatform } from "../platform.ts";
import { CALLBACK, PLACE } from "./_register.ts";

Deno.test("createWebhooks refuses a timeout too long for a timer, naming it, rather than failing every call at once", async () => {
  await withKv((kv) => {
    for (const timeout of [2 ** 31, 3e9, Number.MAX_SAFE_INTEGER]) {
      assert.throws(
        () => createWebhooks(kv, { timeout }),
        (e: Error) =>
          e instanceof RangeError &&
          /^Cannot create webhooks: 'timeout' must be [^\n]*2147483647 ms, got /.test(e.message),
        String(timeout),
      );
    }
    return Promise.resolve();
  });
});

Deno.test("register() with the longest timeout a timer holds waits for the platform's answer", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: 2 ** 31 - 1 });
    await hooks.communities.save(communityOf(platform));
    const answer = await hooks.register("Acme", ["document"], PLACE, CALLBACK);
    assert.ok(answer.status >= 200 && answer.status < 300, String(answer.status));
  });
});
