// register() on the happy path: what it POSTs and saves, the options form,
// the platform's answer shapes, and which access token it sends (a missing
// community or token rejects before any request).

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, FIRST_HOOK_ID, HIJACK, keysUnder, withPlatform } from "../platform.ts";
import { CALLBACK, PLACE } from "./_register.ts";

Deno.test("register() POSTs {events, object, callback} with the community's token and saves {id, tenantId, entity}", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const response = await hooks.register("Acme", ["document", "discussion"], PLACE, CALLBACK);

    const [post] = platform.requests("POST", "/api/core/v3/webhooks");
    assert.equal(post.authorization, "Bearer good-token");
    assert.equal(post.contentType, "application/json");
    assert.deepEqual(JSON.parse(post.body), { events: ["document", "discussion"], object: PLACE, callback: CALLBACK });

    assert.equal(response.status, 200);
    assert.equal(response.headers["x-platform"], "sandbox");
    const ref = `${platform.url}/api/core/v3/webhooks/${FIRST_HOOK_ID}`;
    assert.equal(response.entity.resources?.self?.ref, ref);
    assert.equal(response.entity.callback, CALLBACK);

    const [record] = await hooks.findByWebhookURL(ref);
    assert.match(record.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(record.tenantId, "tenant-acme");
    assert.deepEqual(record.entity, response.entity);
    assert.deepEqual(Object.keys(record).sort(), ["entity", "id", "tenantId"]);
    assert.deepEqual(await hooks.findByID(record.id), record);
    assert.deepEqual(await hooks.pending("tenant-acme"), []);
  });
});

Deno.test("register() accepts the options form", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const response = await hooks.register({ community: "Acme", events: ["user_account"], callback: CALLBACK });
    assert.deepEqual(JSON.parse(platform.requests("POST")[0].body), { events: ["user_account"], callback: CALLBACK });
    assert.equal((await hooks.findByTenantID("tenant-acme"))[0].entity.id, response.entity.id);
  });
});

Deno.test("register() parses answers with and without the anti-hijacking prefix", async () => {
  for (const prefix of [true, false]) {
    await withPlatform(async (kv, platform) => {
      const hooks = createWebhooks(kv);
      await hooks.communities.save(communityOf(platform));
      const response = await hooks.register("Acme", ["webhook"], undefined, CALLBACK);
      assert.equal(response.entity.id, FIRST_HOOK_ID);
    }, { prefix });
  }
  assert.ok(HIJACK.startsWith("throw 'allowIllegalResourceCall is false.';"));
});

Deno.test("register() unwraps an answer shaped { entity }", async () => {
  await withPlatform(async (kv, platform) => {
    platform.override = (req) =>
      req.method === "POST"
        ? Response.json({ entity: { id: "9", resources: { self: { ref: "https://c.example/w/9" } } } })
        : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const response = await hooks.register("Acme", ["user_session"], undefined, CALLBACK);
    assert.equal(response.entity.id, "9");
    assert.equal((await hooks.findByWebhookURL("https://c.example/w/9")).length, 1);
  });
});

Deno.test("register() rejects with {error} naming the community when none has that name, sending nothing", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const error = await hooks.register("Nope", ["document"], PLACE, CALLBACK).then(() => null, (e) => e);
    assert.deepEqual(Object.keys(error), ["error"]);
    assert.match(error.error, /no such community exists/i);
    assert.ok(error.error.endsWith("Nope"));
    assert.equal(platform.seen.length, 0);
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
  });
});

Deno.test("register() rejects with a plain Error when no access token is associated or given, sending nothing", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform, { oauth: undefined }));
    // A bad argument is a TypeError (API.md); a missing token is not a bad argument: SPEC.md 4.2 rule 3 says "an Error".
    await assert.rejects(
      () => hooks.register("Acme", ["document"], PLACE, CALLBACK),
      (e: Error) =>
        e instanceof Error && e.constructor === Error && e.name === "Error" &&
        /creat\w* (the )?community webhook/i.test(e.message) &&
        /no access token/i.test(e.message) && /provided explicitly/.test(e.message) &&
        e.message ===
          "Creating the community webhook failed because no access token is associated with the community and none was provided explicitly",
    );
    assert.equal(platform.seen.length, 0);
    assert.deepEqual(await keysUnder(kv, ["webhook_pending"]), []);
  });
});

Deno.test("register() uses an explicit accessToken in place of the community's own", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform, { oauth: undefined }));
    await hooks.register("Acme", ["document"], PLACE, CALLBACK, "explicit-token");
    assert.equal(platform.requests("POST")[0].authorization, "Bearer explicit-token");
  }, { tokens: ["explicit-token"] });
});
