// A community's name pointer left naming another tenant whose record no
// longer holds that name: the record deleted by hand, or edited to another
// name, while its pointer stayed. The name is then free: saving or adding
// another tenant's community under it takes the pointer over (a live holder
// still refuses, and one saved while the taking over runs fails it).

import assert from "node:assert/strict";
import { ConflictError, createCommunities } from "../../../webhooks/mod.ts";

const acme = (tenantId: string) => ({ name: "Acme", tenantId, baseUrl: `https://${tenantId}.example` });

async function withStale(how: "deleted" | "renamed", fn: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await createCommunities(kv).save(acme("t1"));
    if (how === "deleted") await kv.delete(["community", "t1"]);
    else await kv.set(["community", "t1"], { ...acme("t1"), name: "Other" });
    await fn(kv);
  } finally {
    kv.close();
  }
}

for (const how of ["deleted", "renamed"] as const) {
  Deno.test(`a name pointer naming a tenant whose record was ${how} by hand frees the name for save and add`, async () => {
    await withStale(how, async (kv) => {
      const communities = createCommunities(kv);
      await communities.save(acme("t2"));
      assert.equal((await communities.findByName("Acme"))?.tenantId, "t2");
      assert.equal((await kv.get(["community_by_name", "Acme"])).value, "t2");
    });
    await withStale(how, async (kv) => {
      const communities = createCommunities(kv);
      assert.equal(await communities.add(acme("t2")), true);
      assert.equal((await communities.findByName("Acme"))?.tenantId, "t2");
    });
  });
}

Deno.test("a live holder of the name still refuses another tenant, and one restored meanwhile fails the taking over", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const communities = createCommunities(kv);
    await communities.save(acme("t1"));
    await assert.rejects(communities.save(acme("t2")), ConflictError);
    await kv.delete(["community", "t1"]);
    // The first holder comes back while t2's save has read the stale pointer: the commit's check on t1 fails it,
    // and the save, read again, meets the live holder.
    const getMany = kv.getMany.bind(kv);
    let restored = false;
    kv.getMany = (async (keys: Deno.KvKey[], options?: { consistency?: Deno.KvConsistencyLevel }) => {
      const entries = await getMany(keys, options);
      if (!restored) {
        restored = true;
        await kv.set(["community", "t1"], acme("t1"));
      }
      return entries;
    }) as typeof kv.getMany;
    await assert.rejects(communities.save(acme("t2")), ConflictError);
    assert.equal((await communities.findByName("Acme"))?.tenantId, "t1");
    assert.equal(await communities.findByTenantID("t2"), null);
  } finally {
    kv.close();
  }
});
