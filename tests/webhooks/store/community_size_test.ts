// A community too large for one KV value (64 KiB) was refused in KV's terms ("it is larger than the 65536 bytes one
// KV value holds") naming no field, so neither a library user nor the CLI could say which value to shorten. The
// refusal names the field that makes it too large, never its value, and stores nothing.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";

const acme = { name: "Acme", tenantId: "t1", baseUrl: "https://c.example" };

Deno.test("communities.save() refuses an oversized value with a RangeError naming its field, never the value", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { communities } = createWebhooks(kv);
    const secret = "s".repeat(99_990) + "SECRETEND";
    for (
      const [community, field] of [
        [{ ...acme, clientSecret: secret }, "clientSecret"],
        [{ ...acme, clientId: secret }, "clientId"],
        [{ ...acme, oauth: { access_token: "a", refresh_token: secret } }, "oauth.refresh_token"],
      ] as const
    ) {
      const error = await communities.save(community).then(() => null, (e) => e);
      assert.ok(error instanceof RangeError, String(error));
      assert.match(error.message, new RegExp(`^Cannot save community: '${field.replace(".", "\\.")}' is too long`));
      assert.ok(!error.message.includes("SECRETEND"), "the value is never shown");
      assert.equal(await communities.findByTenantID("t1"), null, "nothing stored");
    }
  } finally {
    kv.close();
  }
});

Deno.test("communities.update() names the field that makes the record too large, keeping the stored one", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { communities } = createWebhooks(kv);
    await communities.save({ ...acme, clientSecret: "old" });
    const error = await communities.update("t1", (c) => ({ ...c, clientSecret: "x".repeat(100_000) }))
      .then(() => null, (e) => e);
    assert.ok(error instanceof RangeError, String(error));
    assert.match(error.message, /^Cannot save community: 'clientSecret' is too long/);
    assert.equal((await communities.findByTenantID("t1"))?.clientSecret, "old");
  } finally {
    kv.close();
  }
});
