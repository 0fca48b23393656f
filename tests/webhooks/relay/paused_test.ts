// A disabled destination is paused: its waiting entries are kept, untried
// and uncounted, and delivered once it is enabled again (docs/relay.md);
// removed, it takes them with it.

import assert from "node:assert/strict";
import { createRelay, type RelayForward } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const P = "e".repeat(64);

Deno.test("a disabled destination keeps its waiting entries untried, and delivers them once enabled again", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 50 });
  try {
    await seedHooks(kv);
    const destination = await relay.destinations.add({ url: app.url });
    await writeAll(kv, relay.write, [0, 1, 2].map((i) => postback("h1", i, P)));
    const ids = (await relay.forwards(P)).map((f) => f.entryId);
    assert.equal((await relay.destinations.update(destination.id, { enabled: false }))?.enabled, false);
    const worker = relay.run();
    let kept: RelayForward[] = [];
    await until(
      async () => (kept = await relay.forwards(P)).every((f) => f.nextAttemptAt === null),
      5_000,
      "the entries kept",
    );
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(app.received.length, 0);
    assert.deepEqual((await relay.deadLetters()).values, []); // kept, not dead letters
    assert.deepEqual(kept.map((f) => [f.entryId, f.state, f.attempts]), ids.map((id) => [id, "pending", 0]));
    // New postbacks are not forwarded to it while disabled.
    await writeAll(kv, relay.write, [postback("h1", 3, P)]);
    assert.equal((await relay.forwards(P, 3)).length, 0);

    // Enabled twice at once: each kept entry is delivered, once, under its id.
    await Promise.all([
      relay.destinations.update(destination.id, { enabled: true }),
      relay.destinations.update(destination.id, { enabled: true }),
    ]);
    await app.waitFor(3);
    await until(async () => (await relay.forwards(P)).every((f) => f.state === "delivered"), 5_000, "the deliveries");
    await new Promise((r) => setTimeout(r, 200));
    await worker.stop();
    assert.deepEqual(app.received.map((r) => r.id).sort(), [...ids].sort());
    assert.deepEqual((await relay.forwards(P)).map((f) => f.attempts), [1, 1, 1]);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("a destination disabled by a 410 keeps the other waiting entries; a removed one takes its kept entries with it", async () => {
  const kv = await Deno.openKv(":memory:");
  let status = 410;
  const app = startApp(() => new Response("answer", { status }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 50 });
  try {
    await seedHooks(kv);
    const destination = await relay.destinations.add({ url: app.url });
    await writeAll(kv, relay.write, [0, 1, 2, 3].map((i) => postback("h1", i, P)));
    const worker = relay.run({ concurrency: 1 });
    await until(async () => (await relay.deadLetters()).values.length === 1, 5_000, "the 410's dead letter");
    await until(
      async () =>
        (await relay.forwards(P)).filter((f) => f.state === "pending" && f.nextAttemptAt === null).length === 3,
      5_000,
      "the other entries kept",
    );
    assert.equal(app.received.length, 1);
    assert.equal((await relay.destinations.get(destination.id))?.enabled, false);
    status = 200;
    await relay.destinations.update(destination.id, { enabled: true });
    await app.waitFor(4);
    await until(
      async () => (await relay.forwards(P)).filter((f) => f.state === "delivered").length === 3,
      5_000,
      "the deliveries",
    );

    // Disabled again with entries kept, then removed: nothing of it is left.
    await relay.destinations.update(destination.id, { enabled: false });
    await writeAll(kv, relay.write, [postback("h2", 0, "r".repeat(64))]); // disabled: no entry
    const other = await relay.destinations.add({ url: `${app.url}/other` });
    await relay.destinations.update(other.id, { enabled: false });
    await writeAll(kv, relay.write, [postback("h1", 0, "q".repeat(64))]); // both disabled: none
    await relay.destinations.update(other.id, { enabled: true });
    await writeAll(kv, relay.write, [postback("h1", 1, "s".repeat(64))]);
    await app.waitFor(5);
    assert.equal(await relay.destinations.remove(destination.id), true);
    await worker.stop();
    assert.deepEqual(await kv.get(["relay_paused"]), { key: ["relay_paused"], value: null, versionstamp: null });
    for await (const left of kv.list({ prefix: ["relay_paused"] })) assert.fail(`kept: ${String(left.key)}`);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("entries written while a destination is switched off and on in two processes are all delivered, none dead", async () => {
  const dir = await Deno.makeTempDir();
  const a = await Deno.openKv(`${dir}/relay.kv`);
  const b = await Deno.openKv(`${dir}/relay.kv`);
  const app = startApp();
  const one = createRelay(a, { allowPrivateNetwork: true, pollMs: 50 });
  const two = createRelay(b, { allowPrivateNetwork: true, pollMs: 50 });
  try {
    await seedHooks(a);
    const destination = await one.destinations.add({ url: app.url });
    const workers = [one.run({ concurrency: 2 }), two.run({ concurrency: 2 })];
    const items = Array.from({ length: 40 }, (_, i) => postback("h1", i, P));
    for (let i = 0; i < items.length; i += 4) {
      await writeAll(a, one.write, items.slice(i, i + 4), 4);
      const enabled = i % 8 !== 0;
      await Promise.all([
        one.destinations.update(destination.id, { enabled }),
        two.destinations.update(destination.id, { enabled: !enabled }),
      ]);
    }
    await one.destinations.update(destination.id, { enabled: true });
    await until(
      async () => (await one.forwards(P)).every((f) => f.state === "delivered"),
      20_000,
      "every entry delivered",
    );
    await Promise.all(workers.map((w) => w.stop()));
    assert.deepEqual((await one.deadLetters()).values, []);
    // Read once all are delivered: an item written while a relay's list was stale is a fan-out record first, its
    // forward state under the record's id, and gets its entry's own id when a worker turns it (read before, under CI's
    // load, the record's ids were there and the entries' not).
    const written = (await one.forwards(P)).map((f) => f.entryId);
    assert.deepEqual(new Set(app.received.map((r) => r.id)), new Set(written));
  } finally {
    await one.close();
    await two.close();
    await app.close();
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a worker's housekeeping sends the entries an enabling process left kept, and drops those of a removed destination", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 50 });
  try {
    await seedHooks(kv);
    const [a, b, c] = [
      await relay.destinations.add({ url: `${app.url}/a` }),
      await relay.destinations.add({ url: `${app.url}/b` }),
      await relay.destinations.add({ url: `${app.url}/c` }),
    ];
    await writeAll(kv, relay.write, [0, 1, 2, 3].map((i) => postback("h1", i, P)), 4);
    for (const d of [a, b, c]) await relay.destinations.update(d.id, { enabled: false });
    const parking = relay.run();
    await until(
      async () => (await relay.forwards(P)).every((f) => f.nextAttemptAt === null),
      5_000,
      "every entry kept",
    );
    await parking.stop();
    // As a process that ended between its commit and moving the kept entries would leave it: b enabled, c removed.
    const stored = await kv.get<Record<string, unknown>>(["relay_destination", b.id]);
    await kv.atomic().set(stored.key, { ...stored.value, enabled: true }).sum(["relay_destinations_version"], 1n)
      .commit();
    await kv.atomic().delete(["relay_destination", c.id]).sum(["relay_destinations_version"], 1n).commit();
    const later = createRelay(kv, { allowPrivateNetwork: true, pollMs: 50 }); // another process, started later
    const worker = later.run(); // its housekeeping runs at its start
    await app.waitFor(4);
    await until(
      async () => (await relay.forwards(P)).filter((f) => f.state === "delivered").length === 4,
      5_000,
      "b's deliveries",
    );
    await worker.stop();
    await later.close();
    const forwards = await relay.forwards(P);
    const ofB = forwards.filter((f) => f.destinationId === b.id).map((f) => f.entryId);
    assert.deepEqual(new Set(app.received.map((r) => r.id)), new Set(ofB));
    assert.equal(app.received.length, 4);
    assert.deepEqual(forwards.filter((f) => f.destinationId === c.id), []); // dropped with c's kept entries
    const kept: string[] = [];
    for await (const entry of kv.list({ prefix: ["relay_paused"] })) kept.push(entry.key[1] as string);
    assert.deepEqual(kept, [a.id, a.id, a.id, a.id]); // a is still disabled: kept; c's are gone
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("an enable's move of kept entries stops when the pinned destination is removed meanwhile: none lands in its partition", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 50 });
  try {
    await seedHooks(kv);
    const d = await relay.destinations.add({ url: app.url, hookIds: ["h1"], pinned: true });
    await new Promise((r) => setTimeout(r, 100)); // the writer's list reloads after the add
    await writeAll(kv, relay.write, [0, 1, 2].map((i) => postback("h1", i, P)));
    await relay.destinations.update(d.id, { enabled: false });
    const parking = relay.run({ destinations: [d.id] });
    await until(async () => (await relay.forwards(P)).every((f) => f.nextAttemptAt === null), 5_000, "kept");
    await parking.stop();
    // Removed while the enable's move has read its batch and not yet committed it (the removal has emptied the
    // partition; deleting the kept entries comes after it, so their checks still pass).
    const list = kv.list.bind(kv);
    kv.list = ((selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
      const listed = list(selector, options);
      if (!("prefix" in selector) || selector.prefix[0] !== "relay_paused") return listed;
      return (async function* () {
        const batch = [];
        for await (const entry of listed) batch.push(entry);
        await kv.delete(["relay_destination", d.id]);
        yield* batch;
      })();
    }) as Deno.Kv["list"];
    await relay.destinations.update(d.id, { enabled: true });
    kv.list = list;
    const orphans = [];
    for await (const entry of kv.list({ prefix: ["relay_due", d.id] })) orphans.push(entry.key);
    assert.deepEqual(orphans, [], "entries moved into a removed destination's partition, which no worker reads");
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});
