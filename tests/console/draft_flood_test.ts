// Kept forms as a way to fill the console's KV: a form sent without a session is kept (its non-secret fields, up to
// one KV value) for 30 minutes, for after sign-in. Anyone can send one, no sign-in needed, so how many an address
// gets kept must be bounded; past the bound the form is still led to sign-in and its page, with nothing kept.

import assert from "node:assert/strict";
import { DEFAULT_RATE_LIMITS } from "../../console/app.ts";
import { Client, NO_RATE_LIMITS, startConsole } from "./_helpers.ts";

/** A register form whose kept fields come close to one KV value (some 56 KB). */
const BIG_FORM = { tenantId: "t", events: Array.from({ length: 28 }, () => "e".repeat(2000)), callback: "x" };

Deno.test("an anonymous client gets at most 30 forms kept per address; the rest go to sign-in with nothing kept", async () => {
  // The other limits stay off, as in every console test; this one as it is by default.
  const t = await startConsole({ rateLimits: { ...NO_RATE_LIMITS, drafts: DEFAULT_RATE_LIMITS.drafts } });
  try {
    const client = new Client(t.origin); // no session, ever
    const kept: string[] = [];
    for (let i = 0; i < 40; i++) {
      const res = await client.post("/webhooks", BIG_FORM);
      await res.body?.cancel();
      assert.equal(res.status, 303);
      const location = new URL(res.headers.get("location")!, t.origin);
      assert.equal(location.pathname, "/signin");
      const returnTo = new URL(location.searchParams.get("returnTo")!, t.origin);
      assert.equal(returnTo.pathname, "/webhooks/new", "the form's page, kept or not");
      const draft = returnTo.searchParams.get("draft");
      if (draft) kept.push(draft);
    }
    let count = 0;
    let bytes = 0;
    for await (const entry of t.kv.list({ prefix: ["console_draft"] })) {
      count++;
      bytes += JSON.stringify(entry.value).length;
    }
    assert.equal(count, 30, `${count} forms kept (${bytes} bytes) for one anonymous address`);
    assert.equal(kept.length, 30);
  } finally {
    await t.close();
  }
});
