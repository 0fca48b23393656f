// A console over KV Connect with its relay worker, postbacks forwarded to a
// destination that answers slowly, so entries wait in the outbox when the KV
// server is killed (SIGKILL) and started again on the same file and port:
// after the recovery, without a restart of the console, the worker delivers
// every waiting entry, each copy of one postback carrying its webhook-id.

import assert from "node:assert/strict";
import { loadFixture, postbackBody, Signer } from "../../scripts/load_postbacks.ts";
import { seedConsoleKv } from "../../scripts/load_processes.ts";
import { createRelay } from "../../webhooks/mod.ts";
import { TEST_TOKEN } from "../kvconnect/token.ts";
import { startConsoleOver, startKvChild } from "./_kv_child.ts";

const POSTBACKS = 60;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("KV Connect server killed and started again with relay entries waiting: each is delivered after", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cw-kv-outage-relay-" });
  await using kv = await startKvChild(`${dir}/remote.kv`);
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const delivered = new Map<string, number>();
  const destination = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.body?.cancel();
    await sleep(300);
    const id = req.headers.get("webhook-id") ?? "(none)";
    delivered.set(id, (delivered.get(id) ?? 0) + 1);
    return new Response("ok");
  });
  const fixture = loadFixture();
  await seedConsoleKv(kv.url, fixture);
  const seeding = await Deno.openKv(kv.url);
  await createRelay(seeding, { allowPrivateNetwork: true }).destinations.add({
    url: `http://127.0.0.1:${destination.addr.port}/in`,
    hookIds: [fixture.hook.id],
  });
  seeding.close();
  const console_ = await startConsoleOver(kv, { ALLOW_PRIVATE_NETWORK: "1" });
  try {
    const signer = new Signer(fixture.community);
    const statuses = await Promise.all(Array.from({ length: POSTBACKS }, async (_, i) => {
      const res = await fetch(`${console_.url}/hooks/${fixture.hook.id}`, {
        method: "POST",
        headers: { authorization: signer.next(), "content-type": "application/json" },
        body: postbackBody(fixture.ref, `r${i}`),
      });
      await res.body?.cancel();
      return res.status;
    }));
    assert.deepEqual(statuses, statuses.map(() => 200));
    await kv.kill();
    const waiting = POSTBACKS - delivered.size;
    await sleep(3_000);
    await kv.restart();
    const deadline = Date.now() + 40_000;
    while (delivered.size < POSTBACKS && Date.now() < deadline) await sleep(250);
    assert.ok(waiting > 0, "entries were waiting when the KV went");
    assert.equal(delivered.size, POSTBACKS, `${delivered.size} of ${POSTBACKS} postbacks delivered after recovery`);
    assert.ok(!delivered.has("(none)"), "every copy carries its webhook-id");
    console.log(`waiting at the outage: ${waiting}; copies: ${[...delivered.values()].reduce((a, b) => a + b, 0)}`);
  } finally {
    await console_.stop();
    await destination.shutdown();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
