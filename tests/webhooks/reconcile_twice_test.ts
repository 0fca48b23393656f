// reconcile() with fix (and deleteUnknown) called twice at once in one
// process: an explained orphan is adopted once, a dangling record removed
// once, and no hook that one run adopted is deleted by the other.

import assert from "node:assert/strict";
import { createWebhooks, type Webhooks } from "../../webhooks/mod.ts";
import { keysUnder, withPlatform } from "./platform.ts";
import { type Drift, EXPLAINED_CALLBACK, makeDrift } from "./_drift.ts";
import type { Platform } from "./platform.ts";

const ACME = { tenantId: "tenant-acme" };

/** The end state one reconcile() with fix (and deleteUnknown) gives. */
async function assertFixedOnce(kv: Deno.Kv, hooks: Webhooks, platform: Platform, drift: Drift, deleteUnknown: boolean) {
  const records = await hooks.findByTenantID("tenant-acme");
  const callbacks = records.map((record) => record.entity.callback).sort();
  assert.deepEqual(callbacks, [EXPLAINED_CALLBACK, drift.matched.entity.callback], "not one record each");
  assert.notEqual(await platform.hook(drift.explainedId), undefined, "the adopted hook was deleted");
  assert.equal((await platform.hook(drift.unknownId)) === undefined, deleteUnknown);
  assert.equal(await hooks.findByID(drift.dangling.id), null);
  assert.deepEqual(await hooks.pending("tenant-acme"), []);
  assert.equal((await keysUnder(kv, ["webhook_by_tenant"])).length, 2);
  assert.equal((await keysUnder(kv, ["webhook_by_url"])).length, 2);
  const again = await hooks.reconcile(ACME, { fix: true, staleAfter: 0 });
  assert.equal(again.matched.length, 2);
  assert.deepEqual(again.dangling, []);
  assert.equal(again.orphans.length, deleteUnknown ? 0 : 1);
}

for (const deleteUnknown of [false, true]) {
  const options = { fix: true, deleteUnknown, staleAfter: 0 };
  Deno.test(`reconcile() with fix${deleteUnknown ? " and deleteUnknown" : ""} twice at once fixes each drift once`, async () => {
    await withPlatform(async (kv, platform) => {
      const drift = await makeDrift(kv, platform);
      const hooks = createWebhooks(kv);
      const reports = await Promise.all([hooks.reconcile(ACME, options), hooks.reconcile(ACME, options)]);
      for (const report of reports) assert.equal(report.orphans.length, 2);
      await assertFixedOnce(kv, hooks, platform, drift, deleteUnknown);
    });
  });

  Deno.test(`reconcile() with fix${deleteUnknown ? " and deleteUnknown" : ""} whose list comes back after another run fixed everything changes nothing more`, async () => {
    await withPlatform(async (kv, platform) => {
      const drift = await makeDrift(kv, platform);
      // The second run reads the local records, then its list of the platform's hooks is answered only once the
      // first run has adopted the orphan, removed the dangling record and cleared the pending entry.
      const { promise: firstDone, resolve: onFirstDone } = Promise.withResolvers<void>();
      let lists = 0;
      const hooks = createWebhooks(kv, {
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          if ((init?.method ?? "GET") === "GET" && ++lists === 2) await firstDone;
          return response;
        },
      });
      const first = hooks.reconcile(ACME, options).finally(onFirstDone);
      const second = hooks.reconcile(ACME, options);
      await Promise.all([first, second]);
      await assertFixedOnce(kv, hooks, platform, drift, deleteUnknown);
    });
  });
}
