// A webhook record edited by hand so that its events hold an object, or its self URL is an object: `hooks list`,
// `hooks find --id` and `hooks find --url` printed `[object Object]` in the EVENTS and URL columns, and a record whose
// entity is not an object as a row of blanks, as if whole. Each such row says `damaged record: ...` and what is wrong
// (as `relay destinations` and `communities list` do), never `[object Object]`; --json stays the records as stored;
// nothing stored is changed.

import assert from "node:assert/strict";
import { cli } from "./_cli_setup.ts";
import { snapshot } from "./_relay_setup.ts";

const REF = "https://acme.example/api/core/v3/webhooks/7";

Deno.test("cli hooks list and find show a record whose fields are of the wrong type as damaged, never [object Object]", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_damaged_hook_row_" });
  const path = `${dir}/webhooks.kv`;
  try {
    const kv = await Deno.openKv(path);
    const records = [
      { id: "h1", tenantId: "t1", entity: { events: ["a"], callback: "https://me.example/h" } },
      { id: "h2", tenantId: "t1", entity: { events: [1, { x: 2 }], resources: { self: { ref: { x: 1 } } } } },
      { id: "h3", tenantId: "t1", entity: "x" },
      { id: "h4", tenantId: "t1", entity: { callback: { a: 1 }, resources: { self: { ref: REF } } } },
    ];
    for (const record of records) {
      await kv.atomic().set(["webhook", record.id], record).set(["webhook_by_tenant", "t1", record.id], record)
        .commit();
    }
    await kv.set(["webhook_by_url", REF, "h4"], records[3]);
    const before = await snapshot(kv);
    kv.close();

    const runs = [["hooks", "list"], ["hooks", "list", "--tenant", "t1"], ["hooks", "find", "--id", "h2"], [
      "hooks",
      "find",
      "--url",
      REF,
    ]];
    for (const words of runs) {
      const ran = await cli([...words, "--kv", path]);
      const what = `${words.join(" ")}:\n${ran.stdout}${ran.stderr}`;
      assert.equal(ran.code, 0, what);
      assert.ok(!/\[object Object\]|undefined|NaN/.test(ran.stdout), what);
      for (const line of ran.stdout.split("\n").slice(2).filter(Boolean)) {
        if (/^h1\s/.test(line)) assert.doesNotMatch(line, /damaged/, what);
        else assert.match(line, /damaged record: \S/, what);
      }
    }
    const listed = await cli(["hooks", "list", "--json", "--kv", path]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout), records);

    const after = await Deno.openKv(path);
    assert.deepEqual(await snapshot(after), before, "a look-up changed stored data");
    after.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
