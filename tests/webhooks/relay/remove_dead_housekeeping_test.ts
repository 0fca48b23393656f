// A completed removal deletes its destination's dead letters, yet each worker's housekeeping (every minute) still
// listed the dead letters of every destination removed within the day, one KV list per removal mark: a `listen`
// leaves one each, so a day of them cost a worker that many reads a minute (a round trip each over KV Connect).
// Once its removal is done, no dead letter of a destination can be written any more (a death is refused by its
// removed mark, as a retry is), so housekeeping has nothing to look for there.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { seedHooks, startApp } from "./fixtures.ts";

/** Counts the lists of `kv` under `prefix`; `done` resolves when a list under `until` has been read to its end. */
function countLists(kv: Deno.Kv, prefix: string, until: string): { count: () => number; done: Promise<void> } {
  let count = 0;
  const done = Promise.withResolvers<void>();
  const list = kv.list.bind(kv);
  kv.list = ((selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
    const iter = list(selector, options);
    const first = "prefix" in selector ? selector.prefix[0] : undefined;
    if (first === prefix) count++;
    if (first !== until) return iter;
    const next = iter.next.bind(iter);
    iter.next = async () => {
      const result = await next();
      if (result.done) done.resolve();
      return result;
    };
    return iter;
  }) as Deno.Kv["list"];
  return { count: () => count, done: done.promise };
}

Deno.test("housekeeping does not list the dead letters of destinations whose removal is done", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp(() => new Response("ok"));
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 50 });
  let later: ReturnType<typeof createRelay> | null = null;
  try {
    await seedHooks(kv);
    for (let i = 0; i < 20; i++) { // twenty `listen` runs of the day, each ended
      const destination = await relay.destinations.add({ url: `${app.url}/listen-${i}` });
      assert.equal(await relay.destinations.remove(destination.id), true);
    }
    let marks = 0;
    for await (const _ of kv.list({ prefix: ["relay_removed"] })) marks++;
    assert.equal(marks, 20, "each removal is marked for a day");
    const lists = countLists(kv, "relay_dead_by_destination", "relay_removed");
    later = createRelay(kv, { pollMs: 50 }); // a worker starting: housekeeping first
    const worker = later.run();
    try {
      await lists.done; // its look at the removal marks, each mark's work done inside the loop
    } finally {
      await worker.stop();
    }
    assert.equal(lists.count(), 0, "dead letters listed for removals already done");
  } finally {
    await later?.close();
    await relay.close();
    await app.close();
    kv.close();
  }
});
