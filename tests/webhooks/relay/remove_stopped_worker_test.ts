/**
 * A destination removed in process A while process B, whose list still had it (trusted for a second), wrote an
 * entry for it after A's removal read the outbox, and B's worker took that entry. B's worker is then stopped (a
 * machine asleep) for over a day in the middle of the attempt: the removal's mark, the only thing that refused a dead
 * letter of a removed destination, expired meanwhile. The attempt's end must write no dead letter (nothing would ever
 * delete it, and it could never be sent again) and leave nothing in the outbox. Two `Deno.openKv` of one KV file
 * stand in for the two processes; the app deletes the mark while the request runs, as its expiry would.
 */

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

Deno.test("a worker stopped past the removal mark's day writes no dead letter of the removed destination", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const kvA = await Deno.openKv(path);
  const kvB = await Deno.openKv(path);
  let id = "";
  const app = startApp(async () => {
    await kvA.delete(["relay_removed", id]); // a day and more passes while B's worker is stopped
    return new Response("no", { status: 500 });
  });
  const a = createRelay(kvA, { allowPrivateNetwork: true });
  const b = createRelay(kvB, { allowPrivateNetwork: true, pollMs: 10, schedule: [] });
  try {
    await seedHooks(kvA);
    id = (await b.destinations.add({ url: app.url })).id;
    await b.destinations.list(); // B's list has it, confirmed now
    assert.equal(await a.destinations.remove(id), true);
    await writeAll(kvB, b.write, [postback("h1", 0)]); // from B's list: after A's removal read the outbox
    const worker = b.run();
    await app.waitFor(1);
    const entryId = app.received[0].id;
    await until(async () => (await b.attempts(entryId)).length === 1, 10_000, "the attempt recorded");
    await worker.stop();
    assert.deepEqual((await a.deadLetters()).values.map((d) => d.destinationId), [], "a dead letter of a removed one");
    for await (const entry of kvA.list({ prefix: ["relay_due"] })) assert.fail(`left: ${String(entry.key)}`);
  } finally {
    await a.close();
    await b.close();
    await app.close();
    kvA.close();
    kvB.close();
    await Deno.remove(path).catch(() => {});
  }
});
