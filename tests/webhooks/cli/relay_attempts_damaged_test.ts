// `relay attempts ENTRY_ID` over an attempt record edited by hand so that its error is an object: the table printed
// `[object Object]` in the ERROR column. It must say the record is damaged there (never `[object Object]`), keep
// the whole attempts as they are, and --json stay one valid document; nothing stored changes.

import assert from "node:assert/strict";
import { cli } from "./_cli_setup.ts";
import { snapshot } from "./_relay_setup.ts";

const ENTRY = "msg_01ARZ3NDEKTSV4RRFFQ69G5FAV";

Deno.test("cli relay attempts names an attempt whose error is an object as damaged, never [object Object]", async () => {
  const dir = await Deno.makeTempDir({ prefix: "relay_attempts_damaged_" });
  const path = `${dir}/webhooks.kv`;
  try {
    const kv = await Deno.openKv(path);
    await kv.set(["relay_attempt", ENTRY, "a1"], { time: 1_700_000_000_000, status: 500, error: { e: 1 } });
    await kv.set(["relay_attempt", ENTRY, "a2"], { time: 1_700_000_001_000, status: 0, error: "refused" });
    const before = await snapshot(kv);
    kv.close();
    const ran = await cli(["relay", "attempts", ENTRY, "--kv", path]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.doesNotMatch(ran.stdout, /\[object Object\]|undefined|NaN/, ran.stdout);
    const rows = ran.stdout.split("\n").slice(2).filter(Boolean);
    assert.equal(rows.length, 2, ran.stdout);
    assert.match(rows[0], /^2023-11-14T22:13:20\.000Z\s+500\s+damaged record: 'error' must be a string/, ran.stdout);
    assert.match(rows[1], /\s+none\s+refused$/, ran.stdout);
    const json = await cli(["relay", "attempts", ENTRY, "--json", "--kv", path]);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).length, 2);
    const after = await Deno.openKv(path);
    assert.deepEqual(await snapshot(after), before);
    after.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli relay attempts over attempt records all edited into junk says they are damaged, not that none is kept", async () => {
  const dir = await Deno.makeTempDir({ prefix: "relay_attempts_junk_" });
  const path = `${dir}/webhooks.kv`;
  try {
    const kv = await Deno.openKv(path);
    await kv.set(["relay_attempt", ENTRY, "a1"], "junk");
    await kv.set(["relay_attempt", ENTRY, "a2"], { time: "yesterday", status: 500 });
    const before = await snapshot(kv);
    kv.close();
    for (const json of [[], ["--json"]]) {
      const ran = await cli(["relay", "attempts", ENTRY, ...json, "--kv", path]);
      assert.equal(ran.code, 1, ran.stdout);
      assert.equal(ran.stdout, "");
      assert.match(ran.stderr, /2 attempt records .* are damaged/, ran.stderr);
      assert.doesNotMatch(ran.stderr, /30 days|no entry waits/, ran.stderr);
    }
    const after = await Deno.openKv(path);
    assert.deepEqual(await snapshot(after), before);
    after.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
