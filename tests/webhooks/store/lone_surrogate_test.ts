// Ids, tenant ids and names holding a lone surrogate (a JavaScript string no
// UTF-8 can spell): KV writes each as U+FFFD in a key, so "a\uD800",
// "a\uDC00" and "a\uFFFD" are one key. Saved, one silently replaced another's
// record (a community of another tenant lost); looked up or removed, one
// reached another's. A save refuses such a string by name; every other call
// answers only for the record whose id (or tenant id) is the one asked.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, keysUnder, withKv, withPlatform } from "../platform.ts";

const PLACE = "https://c.example/api/core/v3/places/42";

const named = (field: string) => (e: Error) => {
  assert.ok(e instanceof TypeError, String(e));
  assert.match(e.message, new RegExp(`'${field}' must be a well-formed string \\(no lone surrogate\\)`));
  return true;
};

Deno.test("save() and communities.save() refuse an id, tenant id or name with a lone surrogate by name, storing nothing", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await assert.rejects(hooks.save({ id: "a\uD800", tenantId: "t1", entity: {} }), named("id"));
    await assert.rejects(hooks.save({ id: "a", tenantId: "t\uDC00", entity: {} }), named("tenantId"));
    const base = { baseUrl: "https://c.example" };
    await assert.rejects(hooks.communities.save({ ...base, name: "A", tenantId: "t\uD800" }), named("tenantId"));
    await assert.rejects(hooks.communities.save({ ...base, name: "A\uDFFF", tenantId: "t1" }), named("name"));
    assert.deepEqual(await keysUnder(kv, []), []);
  });
});

Deno.test("a lookup or removal by an id or tenant id with a lone surrogate never reaches the record of another id", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    const { communities } = hooks;
    await hooks.save({ id: "a\uFFFD", tenantId: "t\uFFFD", entity: {} });
    await communities.save({ name: "Acme", tenantId: "t\uFFFD", baseUrl: "https://c.example" });
    const before = await keysUnder(kv, []);
    assert.equal(await hooks.findByID("a\uD800"), null);
    assert.deepEqual(await hooks.findByTenantID("t\uD800"), []);
    assert.deepEqual((await hooks.list({ tenantId: "t\uDC00" })).values, []);
    assert.equal(await hooks.findWebhookCommunity({ id: "x", tenantId: "t\uD800" } as never), null);
    assert.equal(await communities.findByTenantID("t\uD800"), null);
    assert.equal(await hooks.remove("a\uD800"), false);
    assert.equal(await communities.remove("t\uDC00"), false);
    assert.equal(await communities.storeTokens("t\uD800", { access_token: "a2", refresh_token: "r2" }), false);
    assert.equal(await communities.update("t\uD800", (c) => ({ ...c, name: "Other" })), null);
    assert.deepEqual(await keysUnder(kv, []), before);
    assert.equal((await hooks.findByID("a\uFFFD"))?.id, "a\uFFFD");
    assert.equal((await communities.findByTenantID("t\uFFFD"))?.name, "Acme");
  });
});

Deno.test("pending() of a tenant id with a lone surrogate lists none, not the registrations of the tenant KV keys alike", async () => {
  await withPlatform(async (kv, platform) => {
    // A 2xx answer without an entity: the registration fails and keeps its pending entry for reconcile().
    platform.override = (req) => req.method === "POST" ? new Response("[]", { status: 200 }) : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform, { tenantId: "t\uFFFD" }));
    await assert.rejects(
      () => hooks.register("Acme", ["document"], PLACE, "https://receiver.example/hooks/1"),
      /holds no webhook entity/,
    );
    assert.equal((await hooks.pending("t\uFFFD")).length, 1);
    assert.deepEqual(await hooks.pending("t\uD800"), []);
    assert.deepEqual(await hooks.pending("t\uDC00"), []);
  });
});

/** Lone surrogates of both halves, what KV writes for them, a pair, NUL and a letter. */
const CHARS = fc.constantFrom("\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uFFFD", "\u{1F600}", "\u0000", "a", "\u00E9");

Deno.test("two ids that differ anywhere are two records, or one is refused: never one stored over the other (fast-check)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.string({ unit: CHARS, minLength: 1, maxLength: 4 }),
      fc.string({ unit: CHARS, minLength: 1, maxLength: 4 }),
      async (a, b) => {
        fc.pre(a !== b);
        await withKv(async (kv) => {
          const hooks = createWebhooks(kv);
          const saved: string[] = [];
          for (const id of [a, b]) {
            try {
              await hooks.save({ id, tenantId: "t1", entity: {} });
              saved.push(id);
            } catch (e) {
              assert.ok(e instanceof TypeError && !id.isWellFormed(), String(e));
            }
          }
          for (const id of [a, b]) {
            assert.equal((await hooks.findByID(id))?.id ?? null, saved.includes(id) ? id : null);
          }
          assert.equal((await hooks.findByTenantID("t1")).length, saved.length);
        });
      },
    ),
    { numRuns: 300 },
  );
});
