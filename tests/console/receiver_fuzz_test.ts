// The console's receiver mount under hostile input: random headers (garbage,
// JiveEXTN-shaped with random fields, the sandbox tenant's with a forged
// signature) and random bodies never get a 5xx, never store a delivery, and
// every refusal lands in the log with its reason (issue 13 item 3).

import assert from "node:assert/strict";
import fc from "fast-check";
import { startConsole } from "./_helpers.ts";

Deno.test("random headers and bodies to the console's receiver: no 5xx, nothing accepted, each refusal logged", async () => {
  const t = await startConsole();
  try {
    const field = fc.string({ maxLength: 40 });
    const header = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.record({ client: field, tenant: fc.oneof(field, fc.constant("sandbox-tenant")), ts: fc.integer(), sig: field })
        .map(({ client, tenant, ts, sig }) =>
          `JiveEXTN algorithm=HmacSHA256&client_id=${encodeURIComponent(client)}&jive_url=x&tenant_id=${
            encodeURIComponent(tenant)
          }&timestamp=${ts}&signature=${encodeURIComponent(sig)}`
        ),
      fc.constant(`JiveEXTN tenant_id=sandbox-tenant&timestamp=${Date.now()}&signature=AAAA`),
    );
    const body = fc.oneof(fc.string({ maxLength: 300 }), fc.json({ maxDepth: 3 }), fc.constant("[]"));
    const id = fc.oneof(fc.constant("none"), fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/));
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(header, body, id, async (authorization, text, hookId) => {
        const res = await fetch(`${t.origin}/hooks/${hookId}`, {
          method: "POST",
          headers: { authorization, "content-type": "application/json" },
          body: text,
        });
        await res.body?.cancel();
        sent++;
        if (res.status >= 500) throw new Error(`${res.status} for ${JSON.stringify({ authorization, text, hookId })}`);
      }),
      { numRuns: 150 },
    );
    assert.equal((await t.app.deliveries.page({ status: "accepted" })).values.length, 0);
    const rejected = (await t.app.deliveries.page({ status: "rejected", limit: 200 })).values;
    assert.equal(rejected.length, sent, "every refusal is in the log");
    assert.ok(rejected.every((d) => d.reason && d.status >= 400 && d.status < 500));
  } finally {
    await t.close();
  }
});
