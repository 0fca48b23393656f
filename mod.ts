/**
 * community-webhooks: register webhooks with a community platform (the Jive
 * REST API v3) and keep track of them in Deno KV (Module A), plus a small
 * browser utility library (Library B) as the `browser` namespace.
 *
 * ```ts
 * import { browser, createWebhooks } from "@community-webhooks/sdk";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const hooks = createWebhooks(kv);
 * assert.equal(await hooks.findByID("none"), null);
 * assert.equal(browser.buildQuery({ a: 1 }), "a=1");
 * kv.close();
 * ```
 *
 * @module
 */

export * from "./webhooks/mod.ts";
export * as browser from "./browser/mod.ts";
