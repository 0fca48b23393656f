// reconcile() against the platform: a hook deleted there (dangling), an
// unexplained orphan (deleteUnknown), paging through links.next, and token
// renewal in the middle of paging.

import assert from "node:assert/strict";
import type { Community, Webhooks } from "../../webhooks/mod.ts";
import { HIJACK, keysUnder, type Platform, withCommunity } from "./platform.ts";
import { assertNothingToDo, CALLBACK, EVENTS, ids, OBJECT } from "./_processes.ts";

Deno.test("reconcile() reports a hook deleted on the platform as dangling and fix removes its record", async () => {
  await withCommunity(async (hooks, platform, community, kv) => {
    const kept = await hooks.register(community.name, EVENTS, OBJECT, `${CALLBACK}/kept`);
    const gone = await hooks.register(community.name, EVENTS, OBJECT, `${CALLBACK}/gone`);
    const [keptRecord] = await hooks.findByWebhookURL(kept.entity.resources!.self!.ref!);
    const goneRef = gone.entity.resources!.self!.ref!;
    const [goneRecord] = await hooks.findByWebhookURL(goneRef);
    await platform.removeHook(gone.entity.id!);

    const look = await hooks.reconcile(community);
    assert.deepEqual(ids(look.matched), [keptRecord.id]);
    assert.deepEqual(look.dangling, [goneRecord]);
    assert.deepEqual(await hooks.findByID(goneRecord.id), goneRecord, "a report without fix changed the store");

    const report = await hooks.reconcile(community, { fix: true });
    assert.deepEqual(ids(report.matched), [keptRecord.id]);
    assert.deepEqual(report.dangling, [goneRecord]);
    assert.deepEqual(report.orphans, []);
    assert.equal(await hooks.findByID(goneRecord.id), null);
    assert.deepEqual(await hooks.findByWebhookURL(goneRef), []);
    assert.deepEqual(ids(await hooks.findByTenantID(community.tenantId)), [keptRecord.id]);
    assert.equal((await keysUnder(kv, ["webhook_by_url"])).length, 1);
    assert.equal((await keysUnder(kv, ["webhook_by_tenant"])).length, 1);

    assertNothingToDo(await hooks.reconcile(community, { fix: true }), [keptRecord.id]);
  });
});

Deno.test("reconcile() deletes an unexplained orphan on the platform only with deleteUnknown", async () => {
  await withCommunity(async (hooks, platform, community, kv) => {
    const stranger = await platform.addHook({
      events: EVENTS,
      object: OBJECT,
      callback: "https://elsewhere.example/cb",
    });
    const id = stranger.id as string;

    const report = await hooks.reconcile(community, { fix: true, staleAfter: 0 });
    assert.deepEqual(report.orphans, [{ entity: stranger, pending: null }]);
    assert.ok((await platform.hook(id)) !== undefined);
    assert.equal(platform.requests("DELETE").length, 0);
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);

    const deleting = await hooks.reconcile(community, { fix: true, deleteUnknown: true, staleAfter: 0 });
    assert.deepEqual(deleting.orphans, [{ entity: stranger, pending: null }]);
    assert.equal((await platform.hook(id)) !== undefined, false);
    assert.deepEqual(platform.requests("DELETE").map((seen) => seen.path), [`/api/core/v3/webhooks/${id}`]);
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);

    assertNothingToDo(await hooks.reconcile(community, { fix: true, deleteUnknown: true, staleAfter: 0 }), []);
  });
});

/** Puts `n` hooks on the platform, each with its local record. */
async function manyHooks(hooks: Webhooks, platform: Platform, community: Community, n: number) {
  const saved: string[] = [];
  for (let i = 0; i < n; i++) {
    const entity = await platform.addHook({ events: EVENTS, object: OBJECT, callback: `${CALLBACK}/${i}` });
    const id = `hook-${String(i).padStart(3, "0")}`;
    await hooks.save({ id, tenantId: community.tenantId, entity });
    saved.push(id);
  }
  return saved;
}

/** The startIndex of each page of `total` hooks, 25 a page (the platform's default); the first URL has no query. */
function pageStarts(total: number): (string | null)[] {
  return Array.from({ length: Math.ceil(total / 25) }, (_, i) => i === 0 ? null : String(i * 25));
}

Deno.test("reconcile() asks for GET {base}/api/core/v3/webhooks and follows every links.next page", async () => {
  await withCommunity(async (hooks, platform, community) => {
    const saved = await manyHooks(hooks, platform, community, 250);
    assertNothingToDo(await hooks.reconcile(community, { fix: true, deleteUnknown: true }), saved);
    const gets = platform.requests("GET", "/api/core/v3/webhooks");
    assert.equal(gets[0].search, "");
    const pages = gets.map((seen) => new URLSearchParams(seen.search));
    assert.deepEqual(pages.map((query) => query.get("startIndex")), pageStarts(250));
    assert.equal(platform.requests("DELETE").length, 0);
  });
});

Deno.test("reconcile() renews the tokens on a 401 in the middle of paging and stores them on the community", async () => {
  await withCommunity(async (hooks, platform, community) => {
    const saved = await manyHooks(hooks, platform, community, 250);
    let refused = false;
    platform.override = async (req, url) => {
      if (refused || req.method !== "GET" || url.searchParams.get("startIndex") !== "100") return undefined;
      refused = true;
      await platform.revokeToken("good-token"); // expired from now on
      return new Response(HIJACK + JSON.stringify({ error: { status: 401, message: "Token expired" } }), {
        status: 401,
        headers: { "Content-Type": "application/json" },
      });
    };

    assertNothingToDo(await hooks.reconcile(community), saved);
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    const pages = platform.requests("GET", "/api/core/v3/webhooks");
    const starts = pageStarts(250);
    const refusedAt = starts.indexOf("100");
    assert.deepEqual(
      pages.map((seen) => new URLSearchParams(seen.search).get("startIndex")),
      [...starts.slice(0, refusedAt + 1), ...starts.slice(refusedAt)],
    );
    assert.deepEqual(
      pages.map((seen) => seen.authorization),
      pages.map((_, i) => i <= refusedAt ? "Bearer good-token" : `Bearer ${platform.issued[0].access_token}`),
    );
    const stored = await hooks.communities.findByTenantID(community.tenantId);
    assert.deepEqual(stored?.oauth, platform.issued[0]);
    assert.equal(typeof stored?.renewedAt, "string");
  });
});
