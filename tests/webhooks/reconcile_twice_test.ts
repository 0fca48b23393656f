// reconcile() with fix (and deleteUnknown) called twice at once in one
// process: an explained orphan is adopted once, a dangling record removed
// once, and no hook that one run adopted is deleted by the other.

import assert from "node:assert/strict";
import { createWebhooks } from "../../webhooks/mod.ts";
import { withPlatform } from "./platform.ts";
import { assertFixedOnce, makeDrift } from "./_drift.ts";

const ACME = { tenantId: "tenant-acme" };

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
      const hooks = createWebhooks(kv);
      const held = createWebhooks(kv, {
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          if ((init?.method ?? "GET") === "GET") await firstDone;
          return response;
        },
      });
      const first = hooks.reconcile(ACME, options).finally(onFirstDone);
      const second = held.reconcile(ACME, options);
      await Promise.all([first, second]);
      await assertFixedOnce(kv, hooks, platform, drift, deleteUnknown);
    });
  });
}
