// `hooks list --tenant T` passed over the tenant's index entries that are not whole records (an entry edited by hand
// into junk, an entry of the earlier layout whose record is gone) and listed one whose record is missing or junk as
// if it were whole, whereas `hooks list` names each damaged record under its id: an operator listing a tenant saw
// nothing wrong, then `hooks unregister` of a listed id said no webhook has it. Each must be listed under the id of its
// key, saying what is wrong, in the same form as `hooks list` (`damaged record: ...` in the URL column; `{ id, damaged }`
// with --json); whole records are listed as before; nothing stored changes.

import assert from "node:assert/strict";
import { cli } from "./_cli_setup.ts";
import { runMain, snapshot } from "./_relay_setup.ts";

const T = "t1";
const whole = (id: string, tenantId = T) => ({ id, tenantId, entity: { events: ["a"] } });

Deno.test("cli hooks list --tenant names each damaged index entry of the tenant under its id, in the table and --json", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_damaged_tenant_list_" });
  const path = `${dir}/webhooks.kv`;
  try {
    const kv = await Deno.openKv(path);
    const index = (id: string) => ["webhook_by_tenant", T, id];
    await kv.atomic()
      .set(["webhook", "h1"], whole("h1")).set(index("h1"), whole("h1")) // whole
      .set(index("h2"), whole("h2")) // its record is missing
      .set(["webhook", "h3"], "junk").set(index("h3"), whole("h3")) // its record edited into junk
      .set(["webhook", "h4"], whole("h4")).set(index("h4"), 42) // the index entry edited into junk
      .set(index("h5"), "h5") // an entry of the earlier layout whose record is gone
      .set(["webhook", "h6"], whole("h6", "t2")).set(index("h6"), whole("h6")) // its record moved to another tenant
      .set(["webhook", "h7"], whole("h7")).set(index("h7"), "h7") // an entry of the earlier layout, whole
      .set(["webhook", "x1"], whole("x1", "t2")).set(["webhook_by_tenant", "t2", "x1"], whole("x1", "t2"))
      .commit();
    const before = await snapshot(kv);
    kv.close();
    const damaged = ["h2", "h3", "h4", "h5", "h6"];

    const shown = await cli(["hooks", "list", "--tenant", T, "--kv", path]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.doesNotMatch(shown.stdout, /\[object Object\]|undefined|NaN/);
    const rows = shown.stdout.split("\n").slice(2).filter(Boolean);
    assert.deepEqual(rows.map((r) => r.split(/\s+/)[0]), ["h1", ...damaged, "h7"], shown.stdout);
    for (const row of [rows[0], rows[6]]) assert.doesNotMatch(row, /damaged/, row);
    for (const row of rows.slice(1, 6)) assert.match(row, /damaged record: \S/, row);

    const json = await cli(["hooks", "list", "--tenant", T, "--json", "--kv", path]);
    assert.equal(json.code, 0, json.stderr);
    const listed = JSON.parse(json.stdout) as { id: string; damaged?: string }[];
    assert.deepEqual(listed.map((h) => h.id), ["h1", ...damaged, "h7"]);
    assert.deepEqual([listed[0], listed[6]], [whole("h1"), whole("h7")]);
    for (const h of listed.slice(1, 6)) {
      assert.deepEqual(Object.keys(h), ["id", "damaged"], JSON.stringify(h));
      assert.equal(typeof h.damaged, "string", JSON.stringify(h));
    }

    const after = await Deno.openKv(path);
    assert.deepEqual(await snapshot(after), before, "the list changed stored data");
    after.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli hooks list --tenant with a lone surrogate lists nothing, not the records of the tenant KV stores it as", async () => {
  // KV writes a lone surrogate as U+FFFD: the prefix of "t\uD800" is that of "t\uFFFD", whose records are not its.
  const dir = await Deno.makeTempDir({ prefix: "cli_tenant_surrogate_" });
  const path = `${dir}/webhooks.kv`;
  try {
    const kv = await Deno.openKv(path);
    const record = whole("h1", "t\uFFFD");
    await kv.atomic().set(["webhook", "h1"], record).set(["webhook_by_tenant", "t\uFFFD", "h1"], record).commit();
    kv.close();
    const ran = await runMain(["hooks", "list", "--tenant", "t\uD800", "--json", "--kv", path]);
    assert.equal(ran.code, 0, ran.err);
    assert.deepEqual(JSON.parse(ran.out), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
