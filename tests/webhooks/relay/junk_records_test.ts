/**
 * The relay's records of what happened, edited by hand into junk (null, a number, a string, an object of another
 * shape): a forward state (["relay_entry_by_postback", …]), a dead letter (["relay_dead", id], and its copy under its
 * destination), an attempt record (["relay_attempt", id, …]). Readers pass over them beside the whole ones: `forwards`
 * threw on a null and handed out shapes with no state; `deadLetters`, `deadLetter` and `attempts` handed the junk out
 * as records (pages then read their fields); `redeliver` threw KV's "expected string, number, bigint…".
 */

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const JUNK: unknown[] = [null, 5, "junk", { state: 3 }];
const P = "j".repeat(64);
const JUNK_ID = "msg_01ARZ3NDEKTSV4RRFFQ69G5FAV";

Deno.test("junk forward states, dead letters and attempts are passed over beside whole ones", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp(() => new Response("gone", { status: 410 }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10 });
  try {
    await seedHooks(kv);
    const { id } = await relay.destinations.add({ url: app.url });
    await writeAll(kv, relay.write, [postback("h1", 0, P)]);
    const worker = relay.run();
    await until(async () => (await relay.deadLetters()).values.length === 1, 5_000, "the 410's dead letter");
    await worker.stop();
    const [letter] = (await relay.deadLetters()).values;
    for (const junk of JUNK) {
      await kv.set(["relay_entry_by_postback", P, 0, JUNK_ID], junk);
      await kv.set(["relay_dead", JUNK_ID], junk);
      await kv.set(["relay_dead_by_destination", id, JUNK_ID], id);
      await kv.set(["relay_attempt", letter.id, "zzz"], junk);
      const what = `beside ${JSON.stringify(junk)}`;
      assert.deepEqual((await relay.forwards(P)).map((f) => [f.entryId, f.state]), [[letter.id, "dead"]], what);
      assert.deepEqual((await relay.deadLetters()).values.map((l) => l.id), [letter.id], what);
      assert.deepEqual((await relay.deadLetters({ destinationId: id })).values.map((l) => l.id), [letter.id], what);
      assert.equal(await relay.deadLetter(JUNK_ID), null, what);
      const attempts = await relay.attempts(letter.id);
      assert.deepEqual(attempts.map((a) => a.status), [410], what);
      await assert.rejects(relay.redeliver(JUNK_ID), /damaged/, what);
    }
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});
