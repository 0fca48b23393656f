// `communities list` over community records edited by hand into junk: a name that is an object printed as
// `[object Object]`, and a record that is not an object at all (or another tenant's, or without a name) was left out,
// so an operator could not see that something is stored there and that it is damaged. Each stored record is listed
// under the tenant id of its key, a damaged one saying what is wrong with it (as `relay destinations` does), in the
// table and in --json alike; the whole records are listed as before, and nothing stored is changed.

import assert from "node:assert/strict";
import { cli } from "./_cli_setup.ts";
import { snapshot } from "./_relay_setup.ts";

const JUNK: [string, unknown][] = [
  ["t2", { name: { x: 1 }, tenantId: "t2", baseUrl: "https://b.example" }],
  ["t3", "junk"],
  ["t4", null],
  ["t5", { name: "Five", tenantId: "t9", baseUrl: "https://five.example" }],
  ["t6", { tenantId: "t6" }],
  ["t7", [1, 2]],
  ["t8", { name: "Eight", tenantId: "t8", baseUrl: 5, clientSecret: { s: "hidden-secret" } }],
];

Deno.test("cli communities list names each damaged community record under its tenant id, in the table and --json", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_damaged_community_" });
  const path = `${dir}/webhooks.kv`;
  try {
    const kv = await Deno.openKv(path);
    await kv.set(["community", "t1"], { name: "Acme", tenantId: "t1", baseUrl: "https://acme.example" });
    await kv.set(["community_by_name", "Acme"], "t1");
    for (const [tenant, junk] of JUNK) await kv.set(["community", tenant], junk);
    const before = await snapshot(kv);
    kv.close();

    const shown = await cli(["communities", "list", "--kv", path]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.ok(!/\[object Object\]|undefined|NaN|hidden-secret/.test(shown.stdout), shown.stdout);
    const rows = shown.stdout.split("\n").slice(2).filter(Boolean);
    assert.equal(rows.length, 1 + JUNK.length, shown.stdout);
    assert.match(rows[0], /^Acme\s+t1\s+https:\/\/acme\.example/);
    for (const [tenant] of JUNK) {
      const row = rows.find((r) => r.split(/\s+/).includes(tenant));
      assert.ok(row, `no row for ${tenant}:\n${shown.stdout}`);
      assert.match(row, /damaged record: \S/, row);
    }

    const json = await cli(["communities", "list", "--json", "--kv", path]);
    assert.equal(json.code, 0, json.stderr);
    const listed = JSON.parse(json.stdout) as { name: unknown; tenantId: string; damaged?: string }[];
    assert.deepEqual(listed.map((c) => c.tenantId), ["t1", ...JUNK.map(([t]) => t)]);
    assert.equal(listed[0].damaged, undefined);
    assert.equal(listed[0].name, "Acme");
    for (const c of listed.slice(1)) {
      assert.equal(typeof c.damaged, "string", JSON.stringify(c));
      assert.ok(typeof c.name === "string" || c.name === null, JSON.stringify(c));
    }
    assert.ok(!json.stdout.includes("hidden-secret"));

    const after = await Deno.openKv(path);
    assert.deepEqual(await snapshot(after), before, "the list changed stored data");
    after.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
