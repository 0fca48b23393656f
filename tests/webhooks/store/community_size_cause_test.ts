// A community too large for one KV value is refused naming "its largest field", but the field was measured as
// UTF-8 JSON while KV measures the value as V8 serialises it (a string of Latin-1 letters one byte each, `"` one
// byte): a clientId of 33,000 'é' (33 KB stored, fits alone) beside a clientSecret of 65,000 bytes (too large alone)
// was refused naming 'clientId', so a user who shortened it was refused again. The field named must be the one
// that takes the most room as stored.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";

const acme = { name: "Acme", tenantId: "t1", baseUrl: "https://c.example" };

Deno.test("communities.save() names the field that takes the most room as stored, not as JSON", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { communities } = createWebhooks(kv);
    const secret = "s".repeat(65_000) + "SECRETEND";
    for (const clientId of ["é".repeat(33_000), '"'.repeat(33_000)]) {
      const error = await communities.save({ ...acme, clientId, clientSecret: secret }).then(() => null, (e) => e);
      assert.ok(error instanceof RangeError, String(error));
      assert.match(error.message, /^Cannot save community: 'clientSecret' is too long/);
      assert.ok(!error.message.includes("SECRETEND"), "the value is never shown");
      // What the message says to do works: clientId alone, as it was, fits.
      assert.ok(await communities.save({ ...acme, clientId, clientSecret: "short" }));
      assert.equal(await communities.remove("t1"), true);
    }
  } finally {
    kv.close();
  }
});
