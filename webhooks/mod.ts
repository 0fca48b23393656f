/**
 * Module A: registers webhooks with a community platform (the Jive REST API
 * v3) and keeps their records in Deno KV, with indexes by tenant and by the
 * hook's own URL.
 *
 * ```ts
 * import { createWebhooks } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const hooks = createWebhooks(kv);
 * await hooks.save({ id: "h1", tenantId: "t1", entity: {} });
 * assert.deepEqual((await hooks.findByTenantID("t1")).map((h) => h.id), ["h1"]);
 * kv.close();
 * ```
 *
 * @module
 */

export * from "./webhooks.ts";
export * from "./record_store.ts";
export * from "./lookups.ts";
export * from "./registration.ts";
export * from "./communities.ts";
export { createCommunities } from "./_community_store.ts";
export * from "./errors.ts";
export * from "./events.ts";
export * from "./types.ts";
export * from "./options.ts";
export * from "./jive_extn.ts";
export * from "./receiver.ts";
export * from "./group_commit.ts";
export * from "./kv_retry.ts";
export * from "./relay/mod.ts";
