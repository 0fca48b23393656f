// A community whose hooks drifted every way reconcile() knows: one matched,
// one dangling (deleted on the platform), one orphan that a killed
// registration explains (its pending entry left), and one orphan nobody here
// explains. For the tests that reconcile twice at once.

import assert from "node:assert/strict";
import { createWebhooks, type Webhook, type Webhooks } from "../../webhooks/mod.ts";
import { communityOf, keysUnder, type Platform } from "./platform.ts";

/** What {@linkcode makeDrift} made. */
export interface Drift {
  matched: Webhook;
  dangling: Webhook;
  /** The platform id of the hook a pending entry explains. */
  explainedId: string;
  /** The platform id of the hook nobody here explains. */
  unknownId: string;
}

/** The callback of the hook a pending entry explains. */
export const EXPLAINED_CALLBACK = "https://receiver.example/hooks/explained";

/** Saves the community "Acme" of `platform` in `kv` and makes the four kinds of drift. */
export async function makeDrift(kv: Deno.Kv, platform: Platform): Promise<Drift> {
  const hooks = createWebhooks(kv);
  await hooks.communities.save(communityOf(platform));
  await hooks.register("Acme", ["user_account"], null, "https://receiver.example/hooks/matched");
  await hooks.register("Acme", ["user_session"], null, "https://receiver.example/hooks/dangling");
  const [matched, dangling] = await hooks.findByTenantID("tenant-acme");
  await platform.removeHook(String(dangling.entity.id));
  // A registration whose connection broke after the platform made the hook: its pending entry stays.
  const broken = createWebhooks(kv, {
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      await response.body?.cancel();
      throw new TypeError("error sending request: connection reset");
    },
  });
  await broken.register("Acme", ["user_membership"], null, EXPLAINED_CALLBACK).catch(() => {});
  if ((await hooks.pending("tenant-acme")).length !== 1) throw new Error("the registration left no pending entry");
  const hooksNow = await platform.listHooks();
  const explained = hooksNow.find((hook) => hook.callback === EXPLAINED_CALLBACK)!;
  const unknown = await platform.addHook({ events: ["social_group"], callback: "https://elsewhere.example/cb" });
  return { matched, dangling, explainedId: String(explained.id), unknownId: String(unknown.id) };
}

/** The end state one reconcile() with fix (and deleteUnknown) gives. */
export async function assertFixedOnce(
  kv: Deno.Kv,
  hooks: Webhooks,
  platform: Platform,
  drift: Drift,
  deleteUnknown: boolean,
) {
  const records = await hooks.findByTenantID("tenant-acme");
  const callbacks = records.map((record) => record.entity.callback).sort();
  assert.deepEqual(callbacks, [EXPLAINED_CALLBACK, drift.matched.entity.callback], "not one record each");
  assert.notEqual(await platform.hook(drift.explainedId), undefined, "the adopted hook was deleted");
  assert.equal((await platform.hook(drift.unknownId)) === undefined, deleteUnknown);
  assert.equal(await hooks.findByID(drift.dangling.id), null);
  assert.deepEqual(await hooks.pending("tenant-acme"), []);
  assert.equal((await keysUnder(kv, ["webhook_by_tenant"])).length, 2);
  assert.equal((await keysUnder(kv, ["webhook_by_url"])).length, 2);
  const again = await hooks.reconcile({ tenantId: "tenant-acme" }, { fix: true, staleAfter: 0 });
  assert.equal(again.matched.length, 2);
  assert.deepEqual(again.dangling, []);
  assert.equal(again.orphans.length, deleteUnknown ? 0 : 1);
}
