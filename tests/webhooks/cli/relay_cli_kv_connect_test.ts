// The `relay` commands on a KV Connect `--kv` URL (its token in
// DENO_KV_ACCESS_TOKEN), as on a KV file: the dead letters a relay made over
// a real KV Connect server on 127.0.0.1, listed by `relay dead-letters`.

import assert from "node:assert/strict";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";
import { noSecret, withDeadLetters } from "./_relay_setup.ts";

Deno.test("cli relay dead-letters with a KV Connect --kv URL lists the server's dead letters", async () => {
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const open = async () => {
    const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
    return { path: server.url, kv: await Deno.openKv(server.url), close: () => server.close() };
  };
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
