// A pending-registration entry (["webhook_pending", tenantId, id]) edited by hand into junk: reconcile passes over it
// (no TypeError, the rest of its work done) and leaves it as it is, and pending() lists only well-formed entries.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, withPlatform } from "../platform.ts";

const CALLBACK = "https://receiver.example/hooks/1";
const JUNK: unknown[] = [null, 5, "x", [], {}, { id: "p1" }, { id: 7, startedAt: 0 }, { id: "p1", startedAt: "0" }];

Deno.test("reconcile({ fix }) and pending() pass over a junk pending entry and leave it", async () => {
  for (const junk of JUNK) {
    await withPlatform(async (kv, platform) => {
      const hooks = createWebhooks(kv);
      await hooks.communities.save(communityOf(platform));
      await hooks.register("Acme", ["user_account"], null, CALLBACK);
      const [record] = await hooks.findByTenantID("tenant-acme");
      const at = ["webhook_pending", "tenant-acme", "p1"];
      await kv.set(at, junk);
      const report = await hooks.reconcile({ tenantId: "tenant-acme" }, { fix: true, staleAfter: 0 });
      assert.deepEqual(report.matched.map((r) => r.id), [record.id], `beside ${JSON.stringify(junk)}`);
      assert.deepEqual(report.orphans, []);
      assert.deepEqual(await hooks.pending("tenant-acme"), [], `beside ${JSON.stringify(junk)}`);
      assert.deepEqual((await kv.get(at)).value, junk);
    });
  }
});

Deno.test("reconcile({ fix }) adopts an orphan through its good pending entry beside a junk one", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [record] = await hooks.findByTenantID("tenant-acme");
    // The registration died after its POST: the pending entry is back, the record gone.
    const pending = {
      id: "p2",
      tenantId: "tenant-acme",
      community: "Acme",
      events: ["user_account"],
      callback: CALLBACK,
      startedAt: 0,
    };
    await hooks.remove(record.id);
    await kv.set(["webhook_pending", "tenant-acme", "p2"], pending);
    await kv.set(["webhook_pending", "tenant-acme", "p1"], null);
    assert.deepEqual(await hooks.pending("tenant-acme"), [pending]);
    const report = await hooks.reconcile({ tenantId: "tenant-acme" }, { fix: true, staleAfter: 0 });
    assert.equal(report.orphans.length, 1);
    assert.equal((await hooks.findByTenantID("tenant-acme")).length, 1);
    assert.equal((await kv.get(["webhook_pending", "tenant-acme", "p2"])).value, null);
  });
});
