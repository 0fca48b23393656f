// `hooks list` over webhook records edited by hand into junk (a string, null, a list, another id's record): the
// list left them out, so an operator could not see that something is stored under those ids and that it is damaged.
// Each is listed under the id of its key, saying what is wrong (as `communities list` and `relay destinations` do),
// in the table and --json alike (`{ id, damaged }`); whole records are listed as before; nothing stored changes.

import assert from "node:assert/strict";
import { cli } from "./_cli_setup.ts";
import { snapshot } from "./_relay_setup.ts";

const WHOLE = { id: "h1", tenantId: "t1", entity: { events: ["a"] } };
const JUNK: [string, unknown][] = [["h2", "junk"], ["h3", null], ["h4", [1]], ["h5", { ...WHOLE, id: "h9" }]];

Deno.test("cli hooks list names each damaged webhook record under the id of its key, in the table and --json", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_damaged_hook_list_" });
  const path = `${dir}/webhooks.kv`;
  try {
    const kv = await Deno.openKv(path);
    await kv.atomic().set(["webhook", "h1"], WHOLE).set(["webhook_by_tenant", "t1", "h1"], WHOLE).commit();
    for (const [id, junk] of JUNK) await kv.set(["webhook", id], junk);
    const before = await snapshot(kv);
    kv.close();

    const shown = await cli(["hooks", "list", "--kv", path]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.doesNotMatch(shown.stdout, /\[object Object\]|undefined|NaN/);
    const rows = shown.stdout.split("\n").slice(2).filter(Boolean);
    assert.deepEqual(rows.map((r) => r.split(/\s+/)[0]), ["h1", ...JUNK.map(([id]) => id)], shown.stdout);
    assert.doesNotMatch(rows[0], /damaged/);
    for (const row of rows.slice(1)) assert.match(row, /damaged record: \S/, row);

    const json = await cli(["hooks", "list", "--json", "--kv", path]);
    assert.equal(json.code, 0, json.stderr);
    const listed = JSON.parse(json.stdout) as { id: string; damaged?: string }[];
    assert.deepEqual(listed[0], WHOLE);
    assert.deepEqual(listed.slice(1).map((h) => h.id), JUNK.map(([id]) => id));
    for (const h of listed.slice(1)) assert.equal(typeof h.damaged, "string", JSON.stringify(h));

    const after = await Deno.openKv(path);
    assert.deepEqual(await snapshot(after), before, "the list changed stored data");
    after.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
