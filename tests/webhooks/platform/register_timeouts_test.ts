// register() against a slow or unreachable platform: time-outs and status 0,
// with what it leaves behind (record, pending entry).

import assert from "node:assert/strict";
import { createWebhooks, type PlatformError } from "../../../webhooks/mod.ts";
import { communityOf, expiredCommunityOf, keysUnder, type Platform, withPlatform } from "../platform.ts";
import { CALLBACK, PLACE } from "./_register.ts";

/**
 * Asserts that `action` rejects as `check` accepts while the platform holds the requests `match` picks (past a
 * time-out); they are answered once it has.
 */
async function rejectsWhileHeld(
  platform: Platform,
  match: (req: Request, url: URL) => boolean,
  action: () => Promise<unknown>,
  check: (error: PlatformError) => boolean,
): Promise<void> {
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  platform.override = async (req, url) => {
    if (!match(req, url)) return undefined;
    await held;
    return new Response("{}");
  };
  try {
    await assert.rejects(action, check);
  } finally {
    release();
  }
}

Deno.test("register() times out a slow platform with status 0, storing no record but keeping the pending entry", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: 100 });
    await hooks.communities.save(communityOf(platform));
    await rejectsWhileHeld(
      platform,
      (req) => req.method === "POST",
      () => hooks.register("Acme", ["document"], PLACE, CALLBACK),
      (e: PlatformError) =>
        e.status === 0 && e.uncertain &&
        /^POST http:\/\/127\.0\.0\.1:\d+\/platform\/api\/core\/v3\/webhooks failed with status 0: no answer within 100 ms$/
          .test(e.message),
    );
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    // The platform may have created the hook before the time-out: reconcile() can adopt it.
    assert.equal((await keysUnder(kv, ["webhook_pending"])).length, 1);
  });
});

Deno.test("register() whose token renewal times out after a 401 rejects as certain, and leaves no pending entry", async () => {
  await withPlatform(async (kv, platform) => {
    // The POST's 401 must come back within the limit (only the renewal is held): 1 s, so a loaded machine answers it.
    const hooks = createWebhooks(kv, { timeout: 1_000 });
    await hooks.communities.save(expiredCommunityOf(platform));
    await rejectsWhileHeld(
      platform,
      (req, url) => req.method === "POST" && url.pathname.endsWith("/oauth2/token"),
      () => hooks.register("Acme", ["document"], PLACE, CALLBACK),
      (e: PlatformError) =>
        e.status === 0 && e.uncertain === false && /oauth2\/token failed with status 0/.test(e.message),
    );
    // The webhook POST was answered 401 and never sent again: nothing for reconcile() to adopt.
    assert.equal(platform.requests("POST", "/api/core/v3/webhooks").length, 1);
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_pending"]), []);
  }, { tokens: [] });
});

Deno.test("register() rejects with status 0 when the platform cannot be reached", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    await hooks.communities.save({
      name: "Acme",
      tenantId: "t",
      baseUrl: `http://127.0.0.1:${port}`,
      oauth: { access_token: "tok", refresh_token: "r" },
    });
    await assert.rejects(
      () => hooks.register("Acme", ["document"], PLACE, CALLBACK),
      // SPEC.md section 7: fetch's own error, with status 0, method and URL added.
      (e: PlatformError) =>
        e instanceof TypeError && e.status === 0 && !e.uncertain && e.method === "POST" &&
        e.url === `http://127.0.0.1:${port}/api/core/v3/webhooks` && !e.message.includes("tok"),
    );
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_pending"]), []);
  } finally {
    kv.close();
  }
});
