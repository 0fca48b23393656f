// The limit on a platform answer, at its boundary: register() reads an answer
// of exactly 16 MiB, and refuses one byte more without storing a record (the
// platform may have made the hook: its pending entry stays for reconcile()).

import assert from "node:assert/strict";
import { createWebhooks, PlatformError } from "../../../webhooks/mod.ts";
import { communityOf, keysUnder, withPlatform } from "../platform.ts";
import { CALLBACK } from "./_register.ts";

const LIMIT = 16 * 1024 * 1024;

/** A hook entity as JSON, padded with trailing spaces to `size` bytes. */
function paddedAnswer(base: string, id: string, size: number): Response {
  const json = JSON.stringify({ id, resources: { self: { ref: `${base}/api/core/v3/webhooks/${id}` } } });
  return new Response(json + " ".repeat(size - json.length), { headers: { "content-type": "application/json" } });
}

Deno.test("register() takes an answer of exactly 16 MiB and refuses one of 16 MiB and one byte, storing no record", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    platform.override = (req) => req.method === "POST" ? paddedAnswer(platform.url, "7", LIMIT) : undefined;
    const { entity } = await hooks.register("Acme", ["user_account"], null, CALLBACK);
    assert.equal(entity.id, "7");
    assert.equal((await hooks.findByTenantID("tenant-acme")).length, 1);

    platform.override = (req) => req.method === "POST" ? paddedAnswer(platform.url, "8", LIMIT + 1) : undefined;
    await assert.rejects(hooks.register("Acme", ["user_account"], null, CALLBACK), (error: Error) => {
      assert.ok(error instanceof PlatformError);
      assert.match(error.message, /the answer is larger than 16777216 bytes$/);
      assert.equal(error.uncertain, true);
      return true;
    });
    assert.deepEqual((await hooks.findByTenantID("tenant-acme")).map((h) => h.entity.id), ["7"]);
    assert.equal((await keysUnder(kv, ["webhook_pending"])).length, 1);
  });
});
