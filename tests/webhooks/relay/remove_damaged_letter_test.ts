/**
 * Housekeeping finishes every removal killed midway, even where one of them cannot be finished as it is: a dead letter
 * of a removed destination edited by hand into junk made its removal throw at each look, and since a removal's mark
 * now lasts until the removal is done, every later mark (and the removal of abandoned pinned destinations after
 * them) waited behind it for good. The junk letter is deleted with the rest, and the other removal is finished (its
 * hook index entry, which the junk no longer names, stays: pages skip an entry whose letter is gone).
 */

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

/** Makes the next `count` listings of the outbox throw, as a removal killed after its commit. */
function killRemovals(kv: Deno.Kv, count: number): void {
  const list = kv.list.bind(kv);
  kv.list = ((selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
    if (count > 0 && "prefix" in selector && selector.prefix[0] === "relay_due") {
      count--;
      throw new Error("killed");
    }
    return list(selector, options);
  }) as Deno.Kv["list"];
}

Deno.test("a junk dead letter of one removed destination holds back neither its removal nor another's", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp(() => new Response("no", { status: 500 }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10, schedule: [] });
  try {
    await seedHooks(kv);
    const first = await relay.destinations.add({ url: `${app.url}/a` });
    const second = await relay.destinations.add({ url: `${app.url}/b` });
    let worker = relay.run();
    await writeAll(kv, relay.write, [postback("h1", 0)]);
    await until(async () => (await relay.deadLetters()).values.length === 2, 10_000, "a dead letter of each");
    await worker.stop();
    const junk = (await relay.deadLetters({ destinationId: first.id })).values[0];
    await kv.set(["relay_dead", junk.id], "junk"); // a hand edit
    killRemovals(kv, 2);
    await assert.rejects(relay.destinations.remove(first.id), /killed/);
    await assert.rejects(relay.destinations.remove(second.id), /killed/);
    worker = relay.run(); // housekeeping first
    await until(
      async () => (await relay.deadLetters({ destinationId: second.id })).values.length === 0,
      10_000,
      "the second removal finished",
    );
    await worker.stop();
    assert.equal((await kv.get(["relay_dead", junk.id])).versionstamp, null, "the junk letter deleted");
    for await (const entry of kv.list({ prefix: ["relay_dead_by_destination"] })) {
      assert.fail(`left: ${String(entry.key)}`);
    }
    assert.deepEqual((await relay.deadLetters()).values, [], "no dead letter left of either");
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});
