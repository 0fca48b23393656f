// A destination record that is junk in the KV (hand-edited, or written by a buggy older tool: `{ nonsense: 1 }` at a
// destination's key) is surfaced, not blanked: `list` and `get` answer it under the id of its key with `damaged`
// naming what is wrong, `update` refuses it with a TypeError naming the id and the fields (the stored value
// untouched), `remove` still clears it, and the CLI's `relay destinations` shows it as damaged in its table and JSON.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli/mod.ts";

/** Runs the CLI in process with `argv`: its status and output. */
async function runMain(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: Deno.env.get });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** What a listed destination says is wrong with its record (absent: nothing). */
const damagedOf = (d: unknown): string | undefined => (d as { damaged?: string } | null)?.damaged;

async function withJunk(
  fn: (ctx: {
    kv: Deno.Kv;
    path: string;
    relay: ReturnType<typeof createRelay>;
    good: string;
    bad: string;
  }) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "damaged_destination_" });
  const path = `${dir}/webhooks.kv`;
  const kv = await Deno.openKv(path);
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    const good = (await relay.destinations.add({ url: "http://127.0.0.1:9/good" })).id;
    const bad = (await relay.destinations.add({ url: "http://127.0.0.1:9/bad" })).id;
    await kv.atomic().set(["relay_destination", bad], { nonsense: 1 }).sum(["relay_destinations_version"], 1n).commit();
    await fn({ kv, path, relay, good, bad });
  } finally {
    await relay.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a junk destination record: list and get name it damaged under its key's id; update refuses it, naming it", async () => {
  await withJunk(async ({ kv, relay, good, bad }) => {
    const listed = await relay.destinations.list();
    assert.deepEqual(listed.map((d) => d.id).sort(), [good, bad].sort());
    const shown = listed.find((d) => d.id === bad)!;
    assert.match(damagedOf(shown) ?? "", /'url' is missing/);
    assert.match(damagedOf(shown) ?? "", /'secret' is missing/);
    assert.equal(shown.enabled, false, "a damaged record forwards nothing");
    assert.equal(damagedOf(listed.find((d) => d.id === good)), undefined);
    assert.deepEqual(await relay.destinations.get(bad), shown);

    const before = await kv.get(["relay_destination", bad]);
    await assert.rejects(
      () => relay.destinations.update(bad, { enabled: false }),
      (e: Error) =>
        e instanceof TypeError && e.message.includes(bad) && /damaged/.test(e.message) &&
        /'url' is missing/.test(e.message),
    );
    const after = await kv.get(["relay_destination", bad]);
    assert.deepEqual(after, before, "the stored record untouched");

    assert.equal(await relay.destinations.remove(bad), true);
    assert.deepEqual((await relay.destinations.list()).map((d) => d.id), [good]);
  });
});

Deno.test("a record with one malformed field names that field alone", async () => {
  await withJunk(async ({ kv, relay, good }) => {
    const key = ["relay_destination", good];
    const stored = (await kv.get<Record<string, unknown>>(key)).value!;
    await kv.atomic().set(key, { ...stored, enabled: "yes" }).sum(["relay_destinations_version"], 1n).commit();
    const shown = await relay.destinations.get(good);
    assert.equal(damagedOf(shown), "'enabled' must be a boolean, got a string");
    assert.equal(shown?.url, "http://127.0.0.1:9/good");
  });
});

Deno.test("cli relay destinations shows a junk record as damaged, in the table and in --json", async () => {
  await withJunk(async ({ path, good, bad }) => {
    const table = await runMain(["relay", "destinations", "--kv", path]);
    assert.equal(table.code, 0, table.err);
    const row = table.out.split("\n").find((line) => line.startsWith(bad)) ?? "";
    assert.match(row, /damaged record: 'id' is missing; 'url' is missing/);
    assert.ok(table.out.split("\n").some((line) => line.startsWith(good)));
    const json = await runMain(["relay", "destinations", "--json", "--kv", path]);
    assert.equal(json.code, 0, json.err);
    const damaged = JSON.parse(json.out).find((d: { id: string }) => d.id === bad);
    assert.match(damaged?.damaged ?? "", /'url' is missing/);
  });
});
