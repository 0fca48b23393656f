// `relay.destinations.list()` answers from this process's copy of the list
// while the destinations' version key is where it was: one key read, not
// every destination (500 destinations of 1,000 hooks each made 1.85 MB of KV
// values per console page). A change made through this handle, or through a
// second handle on the KV (as another process makes it), shows at once, and
// so does one that commits while a list is being read in pages; what the
// caller gets is a copy it cannot change the cache through.

import assert from "node:assert/strict";
import { createRelay, type Relay } from "../../../webhooks/mod.ts";
import { seedHooks } from "./fixtures.ts";

/** Keys read through `kv`: one per entry a list yields and per key of a get or getMany. */
interface Reads {
  keys: number;
  /** Runs once, after the next list has yielded its first entry (a change committing mid-read). */
  midList: (() => Promise<void>) | null;
}

function counted(raw: Deno.Kv): { kv: Deno.Kv; reads: Reads } {
  const reads: Reads = { keys: 0, midList: null };
  const kv = new Proxy(raw, {
    get(target, prop) {
      if (prop === "list") {
        // One entry a batch: a list is read in as many pages as it has entries, each a read of its own.
        return async function* (selector: Deno.KvListSelector, options?: Deno.KvListOptions) {
          for await (const entry of target.list(selector, { ...options, batchSize: 1 })) {
            reads.keys++;
            yield entry;
            const during = reads.midList;
            reads.midList = null;
            await during?.();
          }
        };
      }
      if (prop === "get") {
        return (...args: Parameters<Deno.Kv["get"]>) => {
          reads.keys++;
          return target.get(...args);
        };
      }
      if (prop === "getMany") {
        return (keys: Deno.KvKey[], options?: { consistency?: Deno.KvConsistencyLevel }) => {
          reads.keys += keys.length;
          return target.getMany(keys, options);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv, reads };
}

/** Keys read by one `list()`, and what it answered. */
async function listed(relay: Relay, reads: Reads) {
  const before = reads.keys;
  const values = await relay.destinations.list();
  return { values, keys: reads.keys - before };
}

/** Two relay handles on one KV file (as two processes have), `mine` counting its reads. */
async function withTwo(fn: (mine: Relay, reads: Reads, other: Relay) => Promise<void>): Promise<void> {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const [a, b] = [await Deno.openKv(path), await Deno.openKv(path)];
  const { kv, reads } = counted(a);
  const mine = createRelay(kv, { allowPrivateNetwork: true });
  const other = createRelay(b, { allowPrivateNetwork: true });
  try {
    await seedHooks(b, ["h1", "h2", "h3"]);
    await fn(mine, reads, other);
  } finally {
    await mine.close();
    await other.close();
    a.close();
    b.close();
    await Deno.remove(path);
  }
}

Deno.test("a second list() with nothing changed reads one key, and its answer is a copy", async () => {
  await withTwo(async (mine, reads, other) => {
    for (let i = 0; i < 5; i++) await other.destinations.add({ url: `http://127.0.0.1:9/d${i}`, hookIds: ["h1"] });
    const first = await listed(mine, reads);
    assert.equal(first.values.length, 5);
    const second = await listed(mine, reads);
    assert.deepEqual(second.values, first.values);
    assert.equal(second.keys, 1, `a list() with nothing changed read ${second.keys} keys`);
    // The caller's changes stay the caller's.
    second.values[0].hookIds!.push("h9");
    second.values[1].url = "http://127.0.0.1:9/changed";
    second.values.pop();
    assert.deepEqual((await listed(mine, reads)).values, first.values);
    assert.deepEqual(await mine.destinations.get(first.values[1].id), first.values[1]);
  });
});

Deno.test("a change through this handle shows in the next list()", async () => {
  await withTwo(async (mine, reads) => {
    const a = await mine.destinations.add({ url: "http://127.0.0.1:9/a", hookIds: ["h1"] });
    assert.deepEqual((await listed(mine, reads)).values.map((d) => d.id), [a.id]);
    const b = await mine.destinations.add({ url: "http://127.0.0.1:9/b" });
    assert.deepEqual((await listed(mine, reads)).values.map((d) => d.id), [a.id, b.id]);
    await mine.destinations.update(a.id, { hookIds: ["h1", "h2"], enabled: false });
    const updated = (await listed(mine, reads)).values[0];
    assert.deepEqual([updated.hookIds, updated.enabled], [["h1", "h2"], false]);
    await mine.destinations.update(a.id, { url: "http://127.0.0.1:9/a2" });
    assert.equal((await listed(mine, reads)).values[0].url, "http://127.0.0.1:9/a2");
    const c = await mine.destinations.add({ url: "http://127.0.0.1:9/c" });
    assert.equal(await mine.destinations.remove(a.id), true);
    assert.deepEqual((await listed(mine, reads)).values.map((d) => d.id), [b.id, c.id]);
    const again = await listed(mine, reads);
    assert.equal(again.keys, 1);
  });
});

Deno.test("a change through another handle on the KV shows in the next list() at once", async () => {
  await withTwo(async (mine, reads, other) => {
    assert.deepEqual((await listed(mine, reads)).values, []);
    assert.deepEqual((await listed(mine, reads)).values, []);
    const a = await other.destinations.add({ url: "http://127.0.0.1:9/a", hookIds: ["h1"] });
    assert.deepEqual((await listed(mine, reads)).values.map((d) => d.id), [a.id]);
    await other.destinations.update(a.id, { hookIds: ["h2", "h3"] });
    assert.deepEqual((await listed(mine, reads)).values[0].hookIds, ["h2", "h3"]);
    await other.destinations.update(a.id, { enabled: false });
    assert.equal((await listed(mine, reads)).values[0].enabled, false);
    await other.destinations.update(a.id, { hookIds: null });
    assert.equal((await listed(mine, reads)).values[0].hookIds, undefined);
    await other.destinations.remove(a.id);
    assert.deepEqual((await listed(mine, reads)).values, []);
    // A destination removed elsewhere is gone from get too.
    assert.equal(await mine.destinations.get(a.id), null);
  });
});

Deno.test("changes committed while a list() reads its pages show in the next list()", async () => {
  await withTwo(async (mine, reads, other) => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await other.destinations.add({ url: `http://127.0.0.1:9/d${i}` })).id);
    assert.equal((await listed(mine, reads)).values.length, 4);
    await other.destinations.add({ url: "http://127.0.0.1:9/new" }); // the version moves: the next list reads them
    // After the first destination is read: it is changed (behind the read) and so is the last (ahead of it).
    reads.midList = async () => {
      await other.destinations.update(ids[0], { enabled: false });
      await other.destinations.update(ids[3], { enabled: false });
    };
    const during = (await listed(mine, reads)).values;
    assert.equal(reads.midList, null, "the list was not read in pages");
    // The read saw the change ahead of it, not the one behind: a list of no one version, never kept as the cache.
    assert.deepEqual(during.map((d) => d.enabled), [true, true, true, false, true]);
    const after = (await listed(mine, reads)).values;
    assert.deepEqual(after.map((d) => d.enabled), [false, true, true, false, true]);
    assert.deepEqual((await listed(mine, reads)).values, after);
  });
});
