import assert from "node:assert/strict";
import { createWebhooks, type Webhook } from "../../webhooks/mod.ts";
import { keysUnder, withKv } from "./platform.ts";

function hook(id: string, tenantId: string, ref?: string): Webhook {
  return { id, tenantId, entity: ref ? { id, resources: { self: { ref } } } : {} };
}

const REF = "https://c.example/api/core/v3/webhooks/";

Deno.test("save() stores the record under ['webhook', id] and resolves with the store result", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    const result = await hooks.save(hook("h1", "t1", REF + 1));
    assert.equal(result.ok, true);
    assert.equal(typeof result.versionstamp, "string");
    const raw = await kv.get<Webhook>(["webhook", "h1"]);
    assert.deepEqual(raw.value, hook("h1", "t1", REF + 1));
    assert.equal(raw.versionstamp, result.versionstamp);
  });
});

Deno.test("save() rejects a missing, empty or non-string id with a TypeError and stores nothing", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    for (const bad of [undefined, "", 42, null]) {
      await assert.rejects(
        () => hooks.save({ id: bad, tenantId: "t1", entity: {} } as unknown as Webhook),
        (e: Error) => e instanceof TypeError && /'id' must be a non-empty string/.test(e.message),
      );
    }
    await assert.rejects(() => hooks.save(null as unknown as Webhook), TypeError);
    assert.deepEqual(await keysUnder(kv, []), []);
  });
});

Deno.test("findByID() resolves with the record, or null when none has that id", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await hooks.save(hook("h1", "t1"));
    assert.deepEqual(await hooks.findByID("h1"), hook("h1", "t1"));
    assert.equal(await hooks.findByID("h2"), null);
  });
});

Deno.test("findByTenantID() resolves with the tenant's records, [] when none", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await hooks.save(hook("a", "t1"));
    await hooks.save(hook("b", "t2"));
    await hooks.save(hook("c", "t1"));
    assert.deepEqual((await hooks.findByTenantID("t1")).map((h) => h.id), ["a", "c"]);
    assert.deepEqual(await hooks.findByTenantID("t3"), []);
    await assert.rejects(() => hooks.findByTenantID(7 as unknown as string), TypeError);
  });
});

Deno.test("findByWebhookURL() matches entity.resources.self.ref exactly, [] when none", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await hooks.save(hook("a", "t1", REF + 1));
    await hooks.save(hook("b", "t1", REF + 10));
    await hooks.save(hook("c", "t2", REF + 1));
    assert.deepEqual((await hooks.findByWebhookURL(REF + 1)).map((h) => h.id), ["a", "c"]);
    assert.deepEqual((await hooks.findByWebhookURL(REF + 10)).map((h) => h.id), ["b"]);
    assert.deepEqual(await hooks.findByWebhookURL(REF + 2), []);
  });
});

Deno.test("save() of an existing id with another tenant and URL moves its index entries", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await hooks.save(hook("h1", "t1", REF + 1));
    await hooks.save(hook("h1", "t2", REF + 2));
    assert.deepEqual(await hooks.findByTenantID("t1"), []);
    assert.deepEqual(await hooks.findByWebhookURL(REF + 1), []);
    assert.deepEqual((await hooks.findByTenantID("t2")).map((h) => h.id), ["h1"]);
    assert.deepEqual((await hooks.findByWebhookURL(REF + 2)).map((h) => h.id), ["h1"]);
    assert.deepEqual(await keysUnder(kv, ["webhook_by_tenant"]), [["webhook_by_tenant", "t2", "h1"]]);
    assert.deepEqual(await keysUnder(kv, ["webhook_by_url"]), [["webhook_by_url", REF + 2, "h1"]]);
    // Re-saving unchanged keeps exactly one entry of each.
    await hooks.save(hook("h1", "t2", REF + 2));
    assert.equal((await keysUnder(kv, ["webhook_by_url"])).length, 1);
    assert.equal((await keysUnder(kv, ["webhook_by_tenant"])).length, 1);
  });
});

Deno.test("findByWebhookURL() works for self URLs longer than KV's 2048-byte key limit", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    const long = REF + "x".repeat(5000);
    await hooks.save(hook("a", "t1", long + "a"));
    await hooks.save(hook("b", "t1", long + "b"));
    assert.deepEqual((await hooks.findByWebhookURL(long + "a")).map((h) => h.id), ["a"]);
    assert.deepEqual((await hooks.findByWebhookURL(long + "b")).map((h) => h.id), ["b"]);
    assert.deepEqual(await hooks.findByWebhookURL(long), []);
    await hooks.save(hook("a", "t1", REF + 3));
    assert.deepEqual(await hooks.findByWebhookURL(long + "a"), []);
    assert.equal((await keysUnder(kv, ["webhook_by_url"])).length, 2);
  });
});

Deno.test("save() refuses an entity too large for one KV value with a RangeError and stores nothing", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await hooks.save(hook("h1", "t1", REF + 1));
    const big = {
      id: "h1",
      tenantId: "t9",
      entity: { resources: { self: { ref: REF + 9 } }, blob: "x".repeat(70_000) },
    };
    await assert.rejects(() => hooks.save(big), (e: Error) => e instanceof RangeError && /65536 bytes/.test(e.message));
    await assert.rejects(() => hooks.save({ ...big, id: "h2" }), RangeError);
    assert.deepEqual(await hooks.findByID("h1"), hook("h1", "t1", REF + 1));
    assert.equal(await hooks.findByID("h2"), null);
    assert.deepEqual(await hooks.findByTenantID("t9"), []);
    assert.deepEqual(await hooks.findByWebhookURL(REF + 9), []);
  });
});

Deno.test("concurrent saves keep every record and exactly one index entry per record", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await Promise.all(Array.from({ length: 60 }, (_, i) => hooks.save(hook(`h${i}`, `t${i % 3}`, REF + i))));
    // The same id saved concurrently with different tenants: the last commit wins, the index follows it.
    await Promise.all(Array.from({ length: 20 }, (_, i) => hooks.save(hook("shared", `s${i}`, REF + `s${i}`))));
    for (let t = 0; t < 3; t++) assert.equal((await hooks.findByTenantID(`t${t}`)).length, 20);
    const shared = await hooks.findByID("shared");
    const tenantKeys = (await keysUnder(kv, ["webhook_by_tenant"])).filter((k) => k[2] === "shared");
    const urlKeys = (await keysUnder(kv, ["webhook_by_url"])).filter((k) => k[2] === "shared");
    assert.deepEqual(tenantKeys, [["webhook_by_tenant", shared!.tenantId, "shared"]]);
    assert.deepEqual(urlKeys, [["webhook_by_url", shared!.entity.resources!.self!.ref, "shared"]]);
  });
});

Deno.test("findByCommunity() throws synchronously on the three bad inputs of SPEC.md section 7", async () => {
  await withKv((kv) => {
    const hooks = createWebhooks(kv);
    const call = (c: unknown) => () => hooks.findByCommunity(c as never);
    assert.throws(call(undefined), { message: "community object is required" });
    assert.throws(call(null), { message: "community object is required" });
    assert.throws(call("Acme"), { message: "community must be an object" });
    assert.throws(call(42), { message: "community must be an object" });
    assert.throws(call({ name: "Acme" }), { message: "community object must contain a tenantId" });
    assert.throws(call(undefined), Error);
    return Promise.resolve();
  });
});

Deno.test("findByCommunity() resolves with the community's records, [] when none", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await hooks.save(hook("a", "t1"));
    await hooks.save(hook("b", "t2"));
    const found = await hooks.findByCommunity({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
    assert.deepEqual(found.map((h) => h.id), ["a"]);
    assert.deepEqual(await hooks.findByCommunity({ tenantId: "t3" } as never), []);
  });
});

Deno.test("findWebhookCommunity() resolves with the community of the record's tenantId, or null", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example" });
    assert.equal((await hooks.findWebhookCommunity(hook("a", "t1")))?.name, "Acme");
    assert.equal(await hooks.findWebhookCommunity(hook("a", "t2")), null);
    // A record `save` took without a tenantId (it asks only for an id) has no community.
    await hooks.save({ id: "no-tenant" } as never);
    assert.equal(await hooks.findWebhookCommunity((await hooks.findByID("no-tenant"))!), null);
    assert.equal(await hooks.findWebhookCommunity({ tenantId: "" } as never), null);
  });
});

Deno.test("lookups pass a store rejection on as a rejection", async () => {
  const kv = await Deno.openKv(":memory:");
  const hooks = createWebhooks(kv);
  kv.close();
  await assert.rejects(() => hooks.findByTenantID("t1"));
  await assert.rejects(() => hooks.findByWebhookURL(REF + 1));
  await assert.rejects(() => hooks.findWebhookCommunity(hook("a", "t1")));
  await assert.rejects(() => hooks.findByCommunity({ tenantId: "t1" } as never));
  await assert.rejects(() => hooks.findByID("a"));
});

Deno.test("list() pages through records with a cursor, for all tenants or one", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    for (let i = 0; i < 25; i++) await hooks.save(hook(`h${String(i).padStart(2, "0")}`, `t${i % 2}`));
    const ids: string[] = [];
    let cursor = "";
    let pages = 0;
    do {
      const page = await hooks.list({ cursor, limit: 10 });
      ids.push(...page.values.map((h) => h.id));
      cursor = page.cursor;
      pages++;
    } while (cursor !== "");
    assert.equal(ids.length, 25);
    assert.equal(new Set(ids).size, 25);
    assert.equal(pages, 3);
    const first = await hooks.list({ tenantId: "t1", limit: 5 });
    assert.equal(first.values.length, 5);
    assert.ok(first.values.every((h) => h.tenantId === "t1"));
    const rest = await hooks.list({ tenantId: "t1", limit: 10, cursor: first.cursor });
    assert.equal(rest.values.length, 7);
    assert.equal(rest.cursor, "");
    await assert.rejects(() => hooks.list({ limit: 0 }), RangeError);
  });
});

Deno.test("remove() deletes a record with its index entries", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await hooks.save(hook("a", "t1", REF + 1));
    assert.equal(await hooks.remove("a"), true);
    assert.equal(await hooks.remove("a"), false);
    assert.deepEqual(await keysUnder(kv, []), []);
  });
});

Deno.test("createWebhooks() refuses a non-KV argument and bad options", () => {
  assert.throws(() => createWebhooks({} as Deno.Kv), TypeError);
  assert.throws(() => createWebhooks(null as unknown as Deno.Kv), /'kv' must be a Deno.Kv/);
});

Deno.test("createWebhooks() refuses a non-positive timeout", async () => {
  await withKv((kv) => {
    assert.throws(() => createWebhooks(kv, { timeout: 0 }), RangeError);
    assert.throws(() => createWebhooks(kv, { fetch: "x" as unknown as typeof fetch }), TypeError);
    return Promise.resolve();
  });
});

Deno.test("save() refuses a tenantId too long for a KV key with a RangeError and stores nothing", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await assert.rejects(
      () => hooks.save(hook("h1", "t".repeat(3000))),
      (e: Error) => e instanceof RangeError && /longer than the 2048 bytes/.test(e.message),
    );
    assert.deepEqual(await keysUnder(kv, []), []);
  });
});

Deno.test("lookups by an id, tenant id or name too long for a KV key find nothing instead of failing", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await hooks.save(hook("h1", "t1"));
    const long = "x".repeat(3000);
    assert.equal(await hooks.findByID(long), null);
    assert.deepEqual(await hooks.findByTenantID(long), []);
    assert.equal(await hooks.communities.findByTenantID(long), null);
    assert.equal(await hooks.communities.findByName(long), null);
    assert.equal((await hooks.findByTenantID("t1")).length, 1);
  });
});

Deno.test("findByID() resolves with null when no id is given, and rejects a non-string id", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await hooks.save(hook("h1", "t1"));
    assert.equal(await hooks.findByID(undefined as unknown as string), null);
    assert.equal(await hooks.findByID(""), null);
    await assert.rejects(() => hooks.findByID(42 as unknown as string), TypeError);
  });
});
