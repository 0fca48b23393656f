// A community whose hooks drifted every way reconcile() knows: one matched,
// one dangling (deleted on the platform), one orphan that a killed
// registration explains (its pending entry left), and one orphan nobody here
// explains. For the tests that reconcile twice at once.

import { createWebhooks, type Webhook } from "../../webhooks/mod.ts";
import { communityOf, type Platform } from "./platform.ts";

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
