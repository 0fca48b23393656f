// `hooks unregister ID` of a record edited by hand into one the platform call cannot use (its entity not an object,
// no tenant id): the command said "it must be a record with an entity or its id, got an object", a message about an
// argument the operator never gave (they gave a right id), or "no community has the tenantId undefined". It must say
// that the stored record of that id is damaged and which field, exit 1 with no stack, and leave the KV as it was.

import assert from "node:assert/strict";
import { cli } from "./_cli_setup.ts";
import { snapshot } from "./_relay_setup.ts";

Deno.test("cli hooks unregister of a damaged record says the stored record is damaged and names its field", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_unregister_damaged_" });
  const path = `${dir}/webhooks.kv`;
  try {
    const kv = await Deno.openKv(path);
    await kv.set(["community", "t1"], { name: "Acme", tenantId: "t1", baseUrl: "http://127.0.0.1:9" });
    await kv.set(["community_by_name", "Acme"], "t1");
    const records = [
      { id: "h3", tenantId: "t1", entity: "x" },
      { id: "h5", entity: { id: "7" } },
    ];
    for (const record of records) await kv.set(["webhook", record.id], record);
    const before = await snapshot(kv);
    kv.close();
    for (const [id, field] of [["h3", "entity"], ["h5", "tenantId"]]) {
      const ran = await cli(["hooks", "unregister", id, "--kv", path], { env: { ACCESS_TOKEN: "tok" } });
      const what = `${id}: ${ran.stderr}`;
      assert.equal(ran.code, 1, what);
      assert.equal(ran.stdout, "", what);
      assert.match(ran.stderr, new RegExp(`^Error: .*stored record ["']${id}["'] is damaged: its '${field}'`), what);
      assert.doesNotMatch(ran.stderr, /\n\s+at |Uncaught/, what);
    }
    const after = await Deno.openKv(path);
    assert.deepEqual(await snapshot(after), before, "a failed unregister changed stored data");
    after.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
