// A community's record edited by hand into junk (not an object, an object of another shape, another tenant's
// record): save() of that tenant stores the community over it, as over none, and drops no other community's name
// pointer (the junk's name is not this tenant's old name).

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";

const OTHER = { name: "Other", tenantId: "t9", baseUrl: "https://other.example" };
const JUNK: unknown[] = [5, null, "x", [1], { a: 1 }, 10n, new Deno.KvU64(5n), { ...OTHER }, { name: 7 }];

Deno.test("communities.save over a junk record of its tenant stores it and keeps the others' names", async () => {
  for (const junk of JUNK) {
    const kv = await Deno.openKv(":memory:");
    try {
      const { communities } = createWebhooks(kv);
      await communities.save(OTHER);
      await kv.set(["community", "t1"], junk);
      await communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://acme.example" });
      assert.equal((await communities.findByName("Acme"))?.tenantId, "t1", String(junk));
      assert.equal((await communities.findByName("Other"))?.tenantId, "t9", String(junk));
    } finally {
      kv.close();
    }
  }
});
