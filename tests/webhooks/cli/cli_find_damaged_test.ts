// `hooks find --id ID` and `hooks unregister ID` of an id whose stored record was edited into junk (a string, null,
// another id's record) said "No webhook has the id", as if nothing were stored there, while `hooks list` shows it
// damaged. They must fail (status 1, nothing on stdout, no stack) saying the stored record is damaged and what is
// wrong, and change nothing stored; an id with nothing stored still says "No webhook has the id".

import assert from "node:assert/strict";
import { cli } from "./_cli_setup.ts";
import { snapshot } from "./_relay_setup.ts";

Deno.test("cli hooks find --id and unregister of a junk record say it is damaged, not missing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_find_damaged_" });
  const path = `${dir}/webhooks.kv`;
  try {
    const kv = await Deno.openKv(path);
    await kv.set(["webhook", "h2"], "junk");
    await kv.set(["webhook", "h3"], null);
    await kv.set(["webhook", "h5"], { id: "h9", tenantId: "t1", entity: {} });
    const before = await snapshot(kv);
    kv.close();
    for (const id of ["h2", "h3", "h5"]) {
      for (
        const words of [["hooks", "find", "--id", id], ["hooks", "unregister", id], [
          "hooks",
          "find",
          "--json",
          "--id",
          id,
        ]]
      ) {
        const ran = await cli([...words, "--kv", path], { env: { ACCESS_TOKEN: "tok" } });
        const what = `${words.join(" ")}: ${ran.stderr}`;
        assert.equal(ran.code, 1, what);
        assert.equal(ran.stdout, "", what);
        assert.match(ran.stderr, new RegExp(`^Error: The stored record '${id}' is damaged: \\S`), what);
        assert.doesNotMatch(ran.stderr, /\n\s+at |Uncaught/, what);
      }
    }
    const none = await cli(["hooks", "find", "--id", "h7", "--kv", path]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /^Error: No webhook has the id 'h7'/);
    const after = await Deno.openKv(path);
    assert.deepEqual(await snapshot(after), before, "a look-up changed stored data");
    after.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
