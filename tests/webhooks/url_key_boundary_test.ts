// API.md's URL index at its boundary: a self URL of up to 1 KiB is its own
// index key part, one byte more is indexed by its SHA-256 digest; either way
// findByWebhookURL finds the record, and only by the whole URL.

import assert from "node:assert/strict";
import { createWebhooks } from "../../webhooks/mod.ts";
import { keysUnder, withKv } from "./platform.ts";

const BASE = "https://c.example/api/core/v3/webhooks/";

Deno.test("findByWebhookURL() finds self URLs of 1024 bytes (keyed as they are) and of 1025 bytes (keyed by digest)", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    const at = BASE + "a".repeat(1024 - BASE.length);
    const past = at + "b";
    await hooks.save({ id: "h1", tenantId: "t1", entity: { resources: { self: { ref: at } } } });
    await hooks.save({ id: "h2", tenantId: "t1", entity: { resources: { self: { ref: past } } } });
    const keys = await keysUnder(kv, ["webhook_by_url"]);
    assert.equal(keys.length, 2);
    assert.deepEqual(keys.find((key) => key[2] === "h1"), ["webhook_by_url", at, "h1"]);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(past)));
    assert.deepEqual(keys.find((key) => key[2] === "h2"), ["webhook_by_url", digest, "h2"]);
    assert.deepEqual((await hooks.findByWebhookURL(at)).map((h) => h.id), ["h1"]);
    assert.deepEqual((await hooks.findByWebhookURL(past)).map((h) => h.id), ["h2"]);
    assert.deepEqual(await hooks.findByWebhookURL(at.slice(0, -1)), []);
  });
});
