// communities.remove(tenantId) of a record edited by hand (or by a buggy older tool): its name missing, null, an
// object or too long for a key made remove() throw KV's own "expected string, number, bigint, ArrayBufferView,
// boolean" or "Key too large", the record left there for good; and one whose name is another tenant's (a copy)
// deleted that tenant's name pointer, so the other community could no longer be found by its name. The record must
// go, and no other community's pointer with it.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";

const OTHER = { name: "Other", tenantId: "t9", baseUrl: "https://other.example" };

Deno.test("communities.remove deletes a record whose name is missing, not a string or too long for a key", async () => {
  for (const name of [undefined, null, { x: 1 }, ["a"], "n".repeat(3_000)]) {
    const kv = await Deno.openKv(":memory:");
    try {
      const { communities } = createWebhooks(kv);
      await communities.save(OTHER);
      await kv.set(["community", "t1"], { tenantId: "t1", baseUrl: "https://acme.example", name });
      const shown = typeof name === "string" ? `a name of ${name.length}` : JSON.stringify(name);
      assert.equal(await communities.remove("t1"), true, shown);
      assert.equal((await kv.get(["community", "t1"])).versionstamp, null, `${shown}: the record is left`);
      assert.equal((await communities.findByName("Other"))?.tenantId, "t9", shown);
    } finally {
      kv.close();
    }
  }
});

Deno.test("communities.remove of a record holding another tenant's name keeps that tenant's name pointer", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { communities } = createWebhooks(kv);
    await communities.save(OTHER);
    await kv.set(["community", "t1"], { tenantId: "t1", baseUrl: "https://acme.example", name: "Other" });
    assert.equal(await communities.remove("t1"), true);
    assert.equal((await kv.get(["community", "t1"])).versionstamp, null);
    assert.equal((await communities.findByName("Other"))?.tenantId, "t9", "the other community lost its name");
  } finally {
    kv.close();
  }
});
