import assert from "node:assert/strict";
import { type Community, ConflictError, createWebhooks } from "../../../webhooks/mod.ts";
import { keysUnder } from "../platform.ts";

async function withStore(fn: (hooks: ReturnType<typeof createWebhooks>, kv: Deno.Kv) => Promise<void>) {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(createWebhooks(kv), kv);
  } finally {
    kv.close();
  }
}

const acme: Community = {
  name: "Acme",
  tenantId: "t-acme",
  baseUrl: "https://acme.example",
  clientId: "cid",
  clientSecret: "csecret",
  oauth: { access_token: "at", refresh_token: "rt" },
};

Deno.test("communities.save() stores a community found by name and by tenant id", async () => {
  await withStore(async ({ communities }) => {
    const result = await communities.save(acme);
    assert.equal(result.ok, true);
    assert.deepEqual(await communities.findByName("Acme"), acme);
    assert.deepEqual(await communities.findByTenantID("t-acme"), acme);
    assert.equal(await communities.findByName("acme"), null);
    assert.equal(await communities.findByTenantID("other"), null);
  });
});

Deno.test("communities.save() refuses a name another tenant uses, storing nothing", async () => {
  await withStore(async ({ communities }, kv) => {
    await communities.save(acme);
    await assert.rejects(
      () => communities.save({ ...acme, tenantId: "t-other" }),
      (e: Error) => e instanceof ConflictError && /"Acme" is already used by another tenant/.test(e.message),
    );
    assert.equal(await communities.findByTenantID("t-other"), null);
    assert.deepEqual(await keysUnder(kv, ["community"]), [["community", "t-acme"]]);
  });
});

Deno.test("communities.save() of the same tenant id replaces it and moves a renamed community's name", async () => {
  await withStore(async ({ communities }, kv) => {
    await communities.save(acme);
    await communities.save({ ...acme, name: "Acme Corp" });
    assert.equal(await communities.findByName("Acme"), null);
    assert.equal((await communities.findByName("Acme Corp"))?.tenantId, "t-acme");
    assert.deepEqual(await keysUnder(kv, ["community_by_name"]), [["community_by_name", "Acme Corp"]]);
    // The old name is free again.
    await communities.save({ ...acme, name: "Acme", tenantId: "t-new" });
    assert.equal((await communities.findByName("Acme"))?.tenantId, "t-new");
  });
});

Deno.test("communities.save() names the bad field with a TypeError and never shows token values", async () => {
  await withStore(async ({ communities }, kv) => {
    const cases: [unknown, RegExp][] = [
      [null, /must be an object/],
      [{ ...acme, name: "" }, /'name'/],
      [{ ...acme, tenantId: 5 }, /'tenantId'/],
      [{ ...acme, baseUrl: "acme.example" }, /'baseUrl' must be an absolute http\(s\) URL/],
      [{ ...acme, clientSecret: 9 }, /'clientSecret'/],
      [{ ...acme, oauth: "tokens" }, /'oauth'/],
      [{ ...acme, oauth: { access_token: 12345678, refresh_token: "rt" } }, /'oauth.access_token' must be a string$/],
    ];
    for (const [value, message] of cases) {
      await assert.rejects(
        () => communities.save(value as Community),
        (e: Error) => e instanceof TypeError && message.test(e.message),
      );
    }
    assert.deepEqual(await keysUnder(kv, []), []);
  });
});

Deno.test("communities.save() refuses a base URL with a user name or password, and never shows the password", async () => {
  await withStore(async ({ communities }, kv) => {
    for (const baseUrl of ["https://admin:hunter2-pw@acme.example", "https://hunter2-pw@acme.example/api"]) {
      await assert.rejects(
        () => communities.save({ ...acme, baseUrl }),
        (e: Error) =>
          e instanceof TypeError &&
          /'baseUrl' must not carry a user name or password \(acme\.example/.test(e.message) &&
          !e.message.includes("hunter2"),
      );
    }
    assert.deepEqual(await keysUnder(kv, []), []);
    // A stored community keeps its base URL when a save with credentials is refused.
    await communities.save(acme);
    await assert.rejects(() => communities.save({ ...acme, baseUrl: "https://u:p@acme.example" }), TypeError);
    assert.equal((await communities.findByTenantID(acme.tenantId))?.baseUrl, acme.baseUrl);
  });
});

Deno.test("communities.list() pages through communities with a cursor", async () => {
  await withStore(async ({ communities }) => {
    for (let i = 0; i < 7; i++) {
      await communities.save({ name: `C${i}`, tenantId: `t${i}`, baseUrl: "https://c.example" });
    }
    const first = await communities.list({ limit: 5 });
    assert.deepEqual(first.values.map((c) => c.name), ["C0", "C1", "C2", "C3", "C4"]);
    const second = await communities.list({ limit: 5, cursor: first.cursor });
    assert.deepEqual(second.values.map((c) => c.name), ["C5", "C6"]);
    assert.equal(second.cursor, "");
    assert.equal((await communities.list()).values.length, 7);
  });
});

Deno.test("communities.remove() deletes the community and frees its name", async () => {
  await withStore(async ({ communities }, kv) => {
    await communities.save(acme);
    assert.equal(await communities.remove("t-acme"), true);
    assert.equal(await communities.remove("t-acme"), false);
    assert.equal(await communities.findByName("Acme"), null);
    assert.deepEqual(await keysUnder(kv, []), []);
  });
});

Deno.test("communities.storeTokens() replaces the pair and stamps renewedAt", async () => {
  await withStore(async ({ communities }) => {
    await communities.save(acme);
    assert.equal(await communities.storeTokens("t-acme", { access_token: "a2", refresh_token: "r2" }), true);
    const stored = await communities.findByTenantID("t-acme");
    assert.deepEqual(stored?.oauth, { access_token: "a2", refresh_token: "r2" });
    assert.ok(Math.abs(Date.parse(stored!.renewedAt!) - Date.now()) < 5_000);
    assert.equal(await communities.storeTokens("none", { access_token: "a", refresh_token: "r" }), false);
  });
});

Deno.test("communities.save() refuses a record too large for one KV value", async () => {
  await withStore(async ({ communities }) => {
    await assert.rejects(() => communities.save({ ...acme, notes: "x".repeat(70_000) }), RangeError);
    assert.equal(await communities.findByName("Acme"), null);
  });
});

Deno.test("communities.update() applies its change to the record as it is now, and stores nothing for an unknown tenant", async () => {
  await withStore(async ({ communities }) => {
    await communities.save(acme);
    const renamed = await communities.update(acme.tenantId, (current) => ({ ...current, name: "Acme Inc." }));
    assert.equal(renamed?.name, "Acme Inc.");
    assert.equal((await communities.findByName("Acme Inc."))?.tenantId, acme.tenantId);
    assert.equal(await communities.findByName(acme.name), null, "the old name is freed");
    assert.equal(await communities.update("no-such-tenant", (current) => current), null);
    assert.equal(await communities.findByTenantID("no-such-tenant"), null);
    // What it may not do is named, and leaves the record as it was.
    await communities.save({ ...acme, tenantId: "other", name: "Other" });
    const cases: [(c: Community) => Community, RegExp][] = [
      [(c) => ({ ...c, tenantId: "moved" }), /may not change its tenantId/],
      [(c) => ({ ...c, baseUrl: 5 as unknown as string }), /baseUrl/],
      [(c) => ({ ...c, name: "Other" }), /already used by another tenant/],
    ];
    for (const [change, message] of cases) {
      await assert.rejects(() => communities.update(acme.tenantId, change), message);
    }
    await assert.rejects(() => communities.update(acme.tenantId, "x" as never), /'change' must be a function/);
    assert.equal((await communities.findByTenantID(acme.tenantId))?.name, "Acme Inc.");
  });
});

Deno.test("communities.update() beside token renewals at the same moment keeps both: the change and the newest tokens", async () => {
  await withStore(async ({ communities }) => {
    await communities.save(acme);
    for (let i = 0; i < 30; i++) {
      const tokens = { access_token: `access-${i}`, refresh_token: `refresh-${i}` };
      await Promise.all([
        communities.update(acme.tenantId, (current) => ({ ...current, name: `Acme ${i}` })),
        communities.storeTokens(acme.tenantId, tokens),
      ]);
      const stored = (await communities.findByTenantID(acme.tenantId))!;
      assert.equal(stored.name, `Acme ${i}`);
      assert.deepEqual(stored.oauth, tokens, `round ${i}: the renewed tokens were written over`);
    }
  });
});
