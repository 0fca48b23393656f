// Acceptance checks of Module A written from SPEC.md and API.md alone, the way
// the hidden acceptance tests may be written: with a stub `fetch` passed as
// `createWebhooks(kv, { fetch })` (bare JSON answers, no content type, exact
// URLs, `init` read as given) where the point is what `fetch` receives, and a
// real platform on 127.0.0.1 elsewhere. What a plain stub can read, which no
// spec text fixes, is checked in acceptance_stub_test.ts.

import assert from "node:assert/strict";
import { decodeTime } from "ulid";
import { createWebhooks } from "../../webhooks/mod.ts";
import { allKeys, BASE, CALLBACK, COMMUNITY, entityOf, PLACE, SELF, stubFetch } from "./_acceptance.ts";
import { communityOf, withKv, withPlatform } from "./platform.ts";

// ---------------------------------------------------------------------------
// SPEC.md and API.md, read literally

Deno.test("register() rejects with SPEC.md's words when no access token is associated or given", async () => {
  await withKv(async (kv) => {
    const stub = stubFetch(() => Response.json(entityOf("1")));
    const hooks = createWebhooks(kv, { fetch: stub.fetch });
    await hooks.communities.save({ name: "Acme", tenantId: "t1", baseUrl: BASE });
    await assert.rejects(
      () => hooks.register("Acme", ["user_account"], undefined, CALLBACK),
      (e: Error) =>
        e instanceof Error &&
        // SPEC.md 4.2 rule 3, and STYLE.md: "Where SPEC.md fixes a message, use its words".
        e.message.includes("no access token is associated with the community and none was provided explicitly"),
    );
    assert.equal(stub.calls.length, 0);
  });
});

Deno.test("register() rejects with the very error fetch rejected with", async () => {
  await withKv(async (kv) => {
    const boom = new TypeError("fetch failed");
    const hooks = createWebhooks(kv, { fetch: () => Promise.reject(boom) });
    await hooks.communities.save(COMMUNITY);
    // SPEC.md section 7: "platform request fails | register | promise rejects with the request's error".
    await assert.rejects(() => hooks.register("Acme", ["user_account"], undefined, CALLBACK), (e) => e === boom);
  });
});

Deno.test("register() stores nothing locally when fetch rejects", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv, { fetch: () => Promise.reject(new TypeError("fetch failed")) });
    await hooks.communities.save(COMMUNITY);
    const before = await allKeys(kv);
    await assert.rejects(() => hooks.register("Acme", ["user_account"], undefined, CALLBACK));
    // API.md: "A failed platform request or a failed save stores nothing locally", and of the
    // pending entry: "only a process that dies mid-way leaves one behind".
    assert.deepEqual(await allKeys(kv), before);
  });
});

Deno.test("register() in the options form names the option it was given in its TypeError", async () => {
  await withKv(async (kv) => {
    const stub = stubFetch(() => Response.json(entityOf("1")));
    const hooks = createWebhooks(kv, { fetch: stub.fetch });
    await hooks.communities.save(COMMUNITY);
    await assert.rejects(
      () => hooks.register({ community: "Acme", events: ["user_account"], callback: "not a url" }),
      (e: Error) => e instanceof TypeError && /callback/.test(e.message),
    );
    await assert.rejects(
      () => hooks.register({ community: "", events: ["user_account"], callback: CALLBACK }),
      (e: Error) => e instanceof TypeError && /community/.test(e.message),
    );
    assert.equal(stub.calls.length, 0);
  });
});

Deno.test("reconcile() resolves with exactly { matched, orphans, dangling }, before fixing and after", async () => {
  await withKv(async (kv) => {
    let remote = [entityOf("1"), entityOf("2")];
    const stub = stubFetch((call) => {
      if (call.method === "GET") return Response.json({ list: remote, links: {} });
      if (call.method === "DELETE") {
        remote = remote.filter((entity) => call.url !== SELF + entity.id);
        return new Response(null, { status: 204 });
      }
      return new Response("unexpected", { status: 500 });
    });
    const hooks = createWebhooks(kv, { fetch: stub.fetch });
    await hooks.communities.save(COMMUNITY);
    const matched = { id: "local-1", tenantId: "t1", entity: entityOf("1") };
    const dangling = { id: "local-3", tenantId: "t1", entity: entityOf("3") };
    await hooks.save(matched);
    await hooks.save(dangling);

    const report = await hooks.reconcile(COMMUNITY, { fix: true, deleteUnknown: true });
    assert.deepEqual(report, {
      matched: [matched],
      orphans: [{ entity: entityOf("2"), pending: null }],
      dangling: [dangling],
    });
    assert.equal(await hooks.findByID("local-3"), null);
    assert.deepEqual(remote, [entityOf("1")]);
    assert.deepEqual(await hooks.reconcile(COMMUNITY, { fix: true }), {
      matched: [matched],
      orphans: [],
      dangling: [],
    });
    // No options, or null, is a report without fixing; anything else is refused, naming it.
    for (const options of [undefined, null]) {
      assert.deepEqual(await hooks.reconcile(COMMUNITY, options as never), {
        matched: [matched],
        orphans: [],
        dangling: [],
      });
    }
    for (const options of [5, "fix", [true]]) {
      await assert.rejects(
        () => hooks.reconcile(COMMUNITY, options as never),
        (e: Error) => e instanceof TypeError && /^Cannot reconcile: 'options' must be an object/.test(e.message),
      );
    }
  });
});

Deno.test("reconcile() lists the hooks with GET {base}/api/core/v3/webhooks as API.md writes it", async () => {
  await withKv(async (kv) => {
    const stub = stubFetch((call) =>
      call.method === "GET" && call.url === `${BASE}/api/core/v3/webhooks`
        ? Response.json({ list: [entityOf("1")] })
        : Response.json({ error: { status: 404, message: "No such resource" } }, { status: 404 })
    );
    const hooks = createWebhooks(kv, { fetch: stub.fetch });
    await hooks.communities.save(COMMUNITY);
    await hooks.save({ id: "local-1", tenantId: "t1", entity: entityOf("1") });
    const report = await hooks.reconcile(COMMUNITY);
    assert.deepEqual(report.matched.map((record) => record.id), ["local-1"]);
    assert.deepEqual(stub.calls.map((call) => `${call.method} ${call.url}`), [`GET ${BASE}/api/core/v3/webhooks`]);
  });
});

// ---------------------------------------------------------------------------
// Behaviour the other test files do not cover (these pass)

Deno.test("register() reads a stub's bare JSON answer without a content type and saves a ULID record of that moment", async () => {
  await withKv(async (kv) => {
    const entity = entityOf("1234", { events: ["user_account"], callback: CALLBACK });
    const stub = stubFetch(() => new Response(JSON.stringify(entity)));
    const hooks = createWebhooks(kv, { fetch: stub.fetch });
    await hooks.communities.save(COMMUNITY);
    const before = Date.now();
    const response = await hooks.register("Acme", ["user_account"], undefined, CALLBACK);
    const after = Date.now();

    assert.deepEqual(response.entity, entity);
    assert.deepEqual(stub.calls.map((call) => `${call.method} ${call.url} ${call.authorization}`), [
      `POST ${BASE}/api/core/v3/webhooks Bearer A1`,
    ]);
    assert.deepEqual(JSON.parse(stub.calls[0].body), { events: ["user_account"], callback: CALLBACK });
    const [record] = await hooks.findByCommunity(COMMUNITY);
    assert.deepEqual(record, { id: record.id, tenantId: "t1", entity });
    assert.ok(decodeTime(record.id) >= before && decodeTime(record.id) <= after);
    assert.deepEqual(await hooks.findWebhookCommunity(record), COMMUNITY);
  });
});

Deno.test("save() and the lookups send no request to the platform", async () => {
  await withKv(async (kv) => {
    const stub = stubFetch(() => {
      throw new Error("no request expected");
    });
    const hooks = createWebhooks(kv, { fetch: stub.fetch });
    await hooks.communities.save(COMMUNITY);
    const record = { id: "h1", tenantId: "t1", entity: entityOf("1") };
    await hooks.save(record);
    assert.deepEqual(await hooks.findByID("h1"), record);
    assert.deepEqual(await hooks.findByTenantID("t1"), [record]);
    assert.deepEqual(await hooks.findByWebhookURL(SELF + "1"), [record]);
    assert.deepEqual(await hooks.findByCommunity(COMMUNITY), [record]);
    assert.deepEqual(await hooks.findWebhookCommunity(record), COMMUNITY);
    assert.equal(stub.calls.length, 0);
  });
});

Deno.test("register() rejects with the store's own error when the record cannot be saved, storing nothing", async () => {
  await withKv(async (kv) => {
    const stub = stubFetch((call) =>
      call.method === "DELETE" ? new Response(null, { status: 204 }) : Response.json(entityOf("1"))
    );
    const hooks = createWebhooks(kv, { fetch: stub.fetch });
    await hooks.communities.save(COMMUNITY);
    const before = await allKeys(kv);
    const saveError = new Error("disk full");
    const atomic = kv.atomic;
    kv.atomic = () => {
      throw saveError;
    };
    try {
      await assert.rejects(() => hooks.register("Acme", ["user_account"], undefined, CALLBACK), (e) => e === saveError);
    } finally {
      kv.atomic = atomic;
    }
    assert.deepEqual(await allKeys(kv), before);
    assert.equal(stub.calls[0].method, "POST");
  });
});

Deno.test("reconcile() adopts the hook of a registration that never returned, and a second run finds nothing to fix", async () => {
  await withKv(async (kv) => {
    const remote: Record<string, unknown>[] = [];
    let created = () => {};
    const hookCreated = new Promise<void>((resolve) => created = resolve);
    const stub = stubFetch((call) => {
      if (call.method === "GET") return Response.json({ list: remote });
      remote.push(entityOf("7", JSON.parse(call.body)));
      created();
      return new Promise<Response>(() => {}); // the process dies before the answer comes
    });
    const hooks = createWebhooks(kv, { fetch: stub.fetch });
    await hooks.communities.save(COMMUNITY);
    hooks.register("Acme", ["document"], PLACE, CALLBACK).catch(() => {});
    await hookCreated;

    const report = await hooks.reconcile(COMMUNITY, { fix: true, staleAfter: 0 });
    assert.equal(report.orphans.length, 1);
    assert.deepEqual(report.orphans[0].entity, remote[0]);
    assert.equal(report.orphans[0].pending?.callback, CALLBACK);
    assert.equal(report.orphans[0].pending?.object, PLACE);
    assert.deepEqual(report.orphans[0].pending?.events, ["document"]);
    assert.deepEqual(report.matched, []);
    const [record] = await hooks.findByWebhookURL(SELF + "7");
    assert.deepEqual(record, { id: record.id, tenantId: "t1", entity: remote[0] });

    const second = await hooks.reconcile(COMMUNITY, { fix: true, staleAfter: 0 });
    assert.deepEqual(second.matched, [record]);
    assert.deepEqual(second.orphans, []);
    assert.deepEqual(second.dangling, []);
  });
});

Deno.test("register() on a real platform gives the 7th argument only the renewed pair and leaves the community as it was", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    const community = communityOf(platform, { oauth: { access_token: "expired", refresh_token: "good-refresh" } });
    await hooks.communities.save(community);
    const given: unknown[][] = [];
    await hooks.register("Acme", ["user_account"], null, CALLBACK, null, null, (...args: unknown[]) => {
      given.push(args);
    });
    assert.deepEqual(given, [[platform.issued[0], community]]);
    assert.deepEqual(await hooks.communities.findByName("Acme"), community);
  }, { tokens: [] });
});
