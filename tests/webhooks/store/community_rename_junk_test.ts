// communities.save (and update) of a tenant whose stored record was edited by hand: a name copied from another
// tenant's record made the save delete that tenant's name pointer (as its "old name"), so the other community could
// no longer be found by its name; a name too long for a key made every save of the tenant throw KV's "Key too
// large", the tenant stuck with the junk. The save must store the record, and leave every other community's pointer.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";

const OTHER = { name: "Other", tenantId: "t9", baseUrl: "https://other.example" };
const ACME = { name: "Acme", tenantId: "t1", baseUrl: "https://acme.example" };

Deno.test("communities.save over a record holding another tenant's name keeps that tenant's name", async () => {
  for (const how of ["save", "update"] as const) {
    const kv = await Deno.openKv(":memory:");
    try {
      const { communities } = createWebhooks(kv);
      await communities.save(OTHER);
      await kv.set(["community", "t1"], { ...ACME, name: "Other" });
      if (how === "save") await communities.save(ACME);
      else assert.ok(await communities.update("t1", (c) => ({ ...c, name: "Acme" })), how);
      assert.equal((await communities.findByName("Acme"))?.tenantId, "t1", how);
      assert.equal(
        (await communities.findByName("Other"))?.tenantId,
        "t9",
        `${how}: the other community lost its name`,
      );
    } finally {
      kv.close();
    }
  }
});

Deno.test("communities.save over a record whose name is too long for a key stores the community", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { communities } = createWebhooks(kv);
    await kv.set(["community", "t1"], { ...ACME, name: "n".repeat(3_000) });
    await communities.save(ACME);
    assert.equal((await communities.findByName("Acme"))?.tenantId, "t1");
    assert.equal((await communities.findByTenantID("t1"))?.name, "Acme");
  } finally {
    kv.close();
  }
});
