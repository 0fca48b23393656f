/**
 * A removal killed after its commit, before its entries and dead letters were deleted, is finished by a worker's
 * housekeeping, found by the destination's removed mark. The mark expired after a day, finished or not: with no worker
 * running for that day (stopped, or a laptop asleep), the dead letters of the removed destination stayed forever (no
 * housekeeping looks for them without the mark) and its waiting entries stayed until each came due. Here the removal
 * is "killed" in-process (its listing of the outbox throws, after its commit landed), and every expiry the relay asks
 * of KV for a removed mark is recorded: an unfinished removal's mark must last until housekeeping finishes it.
 */

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

/** Records the expiry asked for each `["relay_removed", ...]` set; `kill` makes the next outbox listing throw. */
function observe(kv: Deno.Kv): { expiries: (number | undefined)[]; kill: { armed: boolean } } {
  const expiries: (number | undefined)[] = [];
  const kill = { armed: false };
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const set = op.set.bind(op);
    op.set = (key, value, options) => {
      if (key[0] === "relay_removed") expiries.push(options?.expireIn);
      return set(key, value, options);
    };
    return op;
  };
  const kvSet = kv.set.bind(kv);
  kv.set = (key, value, options) => {
    if (key[0] === "relay_removed") expiries.push(options?.expireIn);
    return kvSet(key, value, options);
  };
  const list = kv.list.bind(kv);
  kv.list = ((selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
    if (kill.armed && "prefix" in selector && selector.prefix[0] === "relay_due") {
      kill.armed = false;
      throw new Error("killed");
    }
    return list(selector, options);
  }) as Deno.Kv["list"];
  return { expiries, kill };
}

Deno.test("a removal killed midway keeps its mark until housekeeping finishes it, however long no worker runs", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp(() => new Response("no", { status: 500 }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10, schedule: [] });
  const { expiries, kill } = observe(kv);
  try {
    await seedHooks(kv);
    const { id } = await relay.destinations.add({ url: app.url });
    let worker = relay.run();
    await writeAll(kv, relay.write, [postback("h1", 0)]);
    await until(async () => (await relay.deadLetters()).values.length === 1, 10_000, "the dead letter");
    await worker.stop();
    await writeAll(kv, relay.write, [postback("h1", 1)]); // waits in the outbox, no worker running
    kill.armed = true;
    await assert.rejects(relay.destinations.remove(id), /killed/);
    assert.equal(await relay.destinations.get(id), null, "its commit landed");
    assert.deepEqual(expiries, [undefined], "the unfinished removal's mark must not expire (it did after a day)");
    worker = relay.run(); // housekeeping first
    await until(async () => (await relay.deadLetters()).values.length === 0, 10_000, "its dead letter deleted");
    await worker.stop();
    for await (const entry of kv.list({ prefix: ["relay_due"] })) assert.fail(`left: ${String(entry.key)}`);
    assert.deepEqual(expiries, [undefined, 86_400_000], "done, the mark lasts a day");
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});
