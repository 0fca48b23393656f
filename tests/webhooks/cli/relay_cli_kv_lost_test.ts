// `relay redeliver` of many ids (xargs passes thousands) on a KV that fails
// mid-way (a KV Connect server lost or its token revoked): the KV failing is
// no fault of one entry, and every later id would fail alike (on a server gone
// silent, each after KV_TIMEOUT_SECONDS). The command ends there, status 1,
// naming the KV, instead of trying each id left and listing each as "Not sent
// again". The KV Connect server is real (127.0.0.1), behind a front that, from
// the first write of the CLI's run on, answers 401 as for a revoked token.

import assert from "node:assert/strict";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";
import { startFront } from "./_kv_front.ts";
import { runMain, withDeadLetters } from "./_relay_setup.ts";

const revoked = () => new Response("Invalid access token.", { status: 401, headers: { "content-type": "text/plain" } });

Deno.test("cli relay redeliver: a KV that fails mid-way ends the command there, naming the KV", async () => {
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
  const open = async () => ({ path: server.url, kv: await Deno.openKv(server.url), close: async () => {} });
  try {
    await withDeadLetters(3, async ({ dead, relay }) => {
      const front = startFront(server.url, "/v2/atomic_write", async () => {}, revoked);
      try {
        const ids = dead.map((l) => l.id);
        const ran = await runMain(["relay", "redeliver", ...ids, "--kv", front.url]);
        assert.ok(front.lost, "the KV never failed");
        assert.equal(ran.code, 1, ran.out);
        for (const later of ids.slice(1)) assert.ok(!ran.out.includes(later), `went on to ${later}: ${ran.out}`);
        assert.match(ran.err, new RegExp(`^Error: The KV at '${front.url}' `));
        assert.ok(!ran.out.includes(TEST_TOKEN) && !ran.err.includes(TEST_TOKEN), "the KV token printed");
        for (const id of ids) assert.notEqual(await relay.deadLetter(id), null, "still a dead letter");
      } finally {
        await front.close();
      }
    }, open);
  } finally {
    await server.close();
  }
});
