// The `relay` commands on a KV Connect `--kv` URL (its token in
// DENO_KV_ACCESS_TOKEN), as on a KV file: the dead letters a relay made over
// a real KV Connect server on 127.0.0.1, listed by `relay dead-letters`; a
// destination disabled, enabled and removed there.

import assert from "node:assert/strict";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";
import { noSecret, withDeadLetters } from "./_relay_setup.ts";

/** A KV Connect server on :memory: as the set-up's KV, its token in DENO_KV_ACCESS_TOKEN. */
const open = async () => {
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
  return { path: server.url, kv: await Deno.openKv(server.url), close: () => server.close() };
};

Deno.test("cli relay dead-letters with a KV Connect --kv URL lists the server's dead letters", async () => {
  await withDeadLetters(2, async ({ run, dead, destination }) => {
    const json = await run(["relay", "dead-letters", "--json"]);
    assert.equal(json.code, 0, json.err);
    assert.deepEqual(JSON.parse(json.out), [...dead].reverse());
    const table = await run(["relay", "destinations"]);
    assert.equal(table.code, 0, table.err);
    assert.ok(table.out.includes(destination.id), table.out);
    for (const ran of [json, table]) {
      noSecret(ran, destination.secret);
      assert.ok(!ran.out.includes(TEST_TOKEN) && !ran.err.includes(TEST_TOKEN), "the KV token printed");
    }
  }, open);
});

Deno.test("cli relay disable, enable and remove with a KV Connect --kv URL change the server's destination", async () => {
  await withDeadLetters(1, async ({ run, relay, destination, dead }) => {
    const { id } = destination;
    const runs = [];
    for (const [command, enabled] of [["disable", false], ["enable", true]] as const) {
      const ran = await run(["relay", command, id, "--json"]);
      assert.equal(ran.code, 0, ran.err);
      assert.deepEqual(JSON.parse(ran.out), { ...(await relay.destinations.get(id)), changed: true });
      assert.equal((await relay.destinations.get(id))?.enabled, enabled);
      runs.push(ran);
    }
    const removed = await run(["relay", "remove", id]);
    assert.equal(removed.code, 0, removed.err);
    assert.equal(await relay.destinations.get(id), null);
    assert.equal(await relay.deadLetter(dead[0].id), null);
    const again = await run(["relay", "enable", id]);
    assert.equal(again.code, 1);
    assert.match(again.err, new RegExp(`^Error: No destination has the id '${id}'`));
    for (const ran of [...runs, removed, again]) {
      noSecret(ran, destination.secret);
      assert.ok(!ran.out.includes(TEST_TOKEN) && !ran.err.includes(TEST_TOKEN), "the KV token printed");
    }
  }, open);
});
