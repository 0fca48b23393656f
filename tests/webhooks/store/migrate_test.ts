// Index entries that hold record copies, and migrate() from the earlier
// pointer layout: lookups right before, during and after; idempotent;
// resumable after a kill; safe beside writers (issue 11 items 1 and 2).

import assert from "node:assert/strict";
import { createWebhooks, type MigrateReport, type Webhook } from "../../../webhooks/mod.ts";
import { assertCopiesMatch, fixtureRecords, indexForms, writeOldLayout } from "../_old_layout.ts";

const ids = (hooks: Webhook[]) => hooks.map((h) => h.id);

Deno.test("save() writes the record's copy into both index entries, and an update replaces them", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    const ref = "https://c.example/api/core/v3/webhooks/1";
    await hooks.save({ id: "h1", tenantId: "t1", entity: { resources: { self: { ref } } } });
    assert.deepEqual((await kv.get(["webhook_by_tenant", "t1", "h1"])).value, await hooks.findByID("h1"));
    assert.deepEqual((await kv.get(["webhook_by_url", ref, "h1"])).value, await hooks.findByID("h1"));
    await hooks.save({ id: "h1", tenantId: "t2", entity: { resources: { self: { ref } }, events: ["document"] } });
    assert.equal((await kv.get(["webhook_by_tenant", "t1", "h1"])).value, null);
    assert.deepEqual((await kv.get(["webhook_by_tenant", "t2", "h1"])).value, await hooks.findByID("h1"));
    assert.equal(await assertCopiesMatch(kv), 1);
  } finally {
    kv.close();
  }
});

Deno.test("save() refuses a record too large for a KV value with a RangeError naming it, writing nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    await assert.rejects(
      hooks.save({ id: "big", tenantId: "t1", entity: { description: "x".repeat(70_000) } }),
      (err: Error) =>
        err instanceof RangeError &&
        err.message ===
          'Cannot save webhook "big": it is larger than the 65536 bytes one KV value holds (the record and each of its two index copies is one value)',
    );
    assert.equal(await hooks.findByID("big"), null);
    assert.deepEqual(await indexForms(kv), { pointers: 0, copies: [] });
  } finally {
    kv.close();
  }
});

Deno.test("lookups on a KV of the earlier layout answer correctly before migrate()", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const records = fixtureRecords(9);
    await writeOldLayout(kv, records);
    const hooks = createWebhooks(kv);
    assert.deepEqual(ids(await hooks.findByTenantID("t1")), ["h000001", "h000004", "h000007"]);
    assert.deepEqual(ids(await hooks.findByWebhookURL("https://c.example/api/core/v3/webhooks/5")), ["h000005"]);
    assert.deepEqual(ids((await hooks.list({ tenantId: "t2", limit: 2 })).values), ["h000002", "h000005"]);
    assert.deepEqual(ids(await hooks.findByCommunity({ tenantId: "t0" })), ["h000000", "h000003", "h000006"]);
    assert.equal((await indexForms(kv)).pointers, 18, "createWebhooks never migrates by itself");
  } finally {
    kv.close();
  }
});

Deno.test("migrate() turns every pointer into a copy, reports progress, and a second run changes nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await writeOldLayout(kv, fixtureRecords(300));
    const hooks = createWebhooks(kv);
    const progress: MigrateReport[] = [];
    const report = await hooks.migrate({ onProgress: (p) => progress.push(p) });
    assert.deepEqual(report, { scanned: 600, migrated: 600, removed: 0 });
    assert.deepEqual(progress.at(-1), report);
    assert.ok(progress.length >= 2, "one report per page of 500 entries");
    assert.equal(await assertCopiesMatch(kv), 300);
    assert.deepEqual(await hooks.migrate(), { scanned: 600, migrated: 0, removed: 0 });
    assert.equal((await hooks.findByTenantID("t2")).length, 100);
  } finally {
    kv.close();
  }
});

Deno.test("migrate() deletes pointers whose record is gone or indexed elsewhere", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const [a, b] = fixtureRecords(2);
    await writeOldLayout(kv, [a, b]);
    await kv.delete(["webhook", a.id]); // a's pointers dangle
    await kv.set(["webhook", b.id], { ...b, tenantId: "moved" }); // b's tenant pointer is stale
    const report = await createWebhooks(kv).migrate();
    assert.deepEqual(report, { scanned: 4, migrated: 1, removed: 3 });
    const { pointers, copies } = await indexForms(kv);
    assert.equal(pointers, 0);
    assert.deepEqual(copies.map((c) => c.key), [["webhook_by_url", b.entity.resources!.self!.ref!, b.id]]);
  } finally {
    kv.close();
  }
});

Deno.test("migrate() is rejected with a TypeError for options of the wrong type", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    await assert.rejects(
      hooks.migrate({ onProgress: 5 as unknown as () => void }),
      (err: Error) =>
        err instanceof TypeError && err.message === "Cannot migrate: 'onProgress' must be a function, got 5",
    );
  } finally {
    kv.close();
  }
});

Deno.test("migrate() beside writers: saves, moves and removes during the run leave only matching copies", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const records = fixtureRecords(600);
    await writeOldLayout(kv, records);
    const hooks = createWebhooks(kv);
    const writers = (async () => {
      for (let i = 0; i < 600; i += 7) {
        if (i % 3 === 0) await hooks.remove(records[i].id);
        else await hooks.save({ ...records[i], tenantId: `moved${i % 5}` });
        assert.ok((await hooks.findByWebhookURL(records[(i + 1) % 600].entity.resources!.self!.ref!)).length <= 1);
      }
    })();
    await Promise.all([hooks.migrate(), writers]);
    await hooks.migrate(); // entries a writer touched after the scan passed them
    const left = await assertCopiesMatch(kv);
    assert.equal(left, 600 - Math.ceil(600 / 21));
    assert.equal(
      (await hooks.findByTenantID("moved1")).length,
      (await hooks.list({ tenantId: "moved1" })).values.length,
    );
  } finally {
    kv.close();
  }
});

Deno.test("migrate() killed in the middle leaves lookups right, and a second run finishes the work", async () => {
  const dir = await Deno.makeTempDir({ prefix: "migrate_kill_" });
  const path = `${dir}/old.kv`;
  try {
    const records = fixtureRecords(6000, 4);
    {
      const kv = await Deno.openKv(path);
      await writeOldLayout(kv, records);
      kv.close();
    }
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("./_migrate_child.ts", import.meta.url).pathname, path],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const first = await lines.read();
    assert.ok(first.value?.includes("scanned"), `a progress line: ${first.value}`);
    child.kill("SIGKILL");
    await child.status;
    await lines.cancel().catch(() => {});

    const kv = await Deno.openKv(path);
    try {
      const mid = await indexForms(kv);
      assert.ok(mid.pointers > 0 && mid.copies.length > 0, `killed mid-way: ${mid.pointers} pointers left`);
      const hooks = createWebhooks(kv);
      // Lookups on the half-migrated KV are right.
      assert.equal((await hooks.findByTenantID("t3")).length, 1500);
      assert.deepEqual(ids(await hooks.findByWebhookURL(records[5999].entity.resources!.self!.ref!)), ["h005999"]);
      const report = await hooks.migrate();
      assert.equal(report.migrated, mid.pointers);
      assert.equal(await assertCopiesMatch(kv), 6000);
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
