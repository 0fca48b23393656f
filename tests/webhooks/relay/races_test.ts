// Public calls made twice at once, or beside a worker, by two "processes"
// (two KV handles on one file): nothing is sent twice beyond what API.md
// allows, nothing is lost, no row is left over, and each answer is true.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const N = 20;

/** Two KV handles on one new file, as two processes have; closed and the file removed when disposed. */
async function twoHandles(): Promise<{ kvA: Deno.Kv; kvB: Deno.Kv } & AsyncDisposable> {
  const dir = await Deno.makeTempDir();
  const [kvA, kvB] = [await Deno.openKv(`${dir}/relay.kv`), await Deno.openKv(`${dir}/relay.kv`)];
  return {
    kvA,
    kvB,
    async [Symbol.asyncDispose]() {
      kvA.close();
      kvB.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** How many keys are under `prefix`. */
async function count(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}

Deno.test("the same dead letters redelivered at once by two processes are each put back once, and sent once", async () => {
  await using handles = await twoHandles();
  const { kvA, kvB } = handles;
  let status = 500;
  const app = startApp(() => new Response(null, { status }));
  const a = createRelay(kvA, { allowPrivateNetwork: true, schedule: [], pollMs: 50 });
  const b = createRelay(kvB, { allowPrivateNetwork: true, schedule: [], pollMs: 50 });
  try {
    await seedHooks(kvA);
    await a.destinations.add({ url: app.url });
    const P = "d".repeat(64);
    await writeAll(kvA, a.write, Array.from({ length: N }, (_, i) => postback("h1", i, P)), N);
    const dying = a.run();
    await until(async () => (await a.deadLetters()).values.length === N, 10_000, "every entry dead");
    await dying.stop();
    const ids = (await a.deadLetters()).values.map((d) => d.id);

    const answers = await Promise.all(ids.flatMap((id) => [a.redeliver(id), b.redeliver(id)]));
    for (let i = 0; i < N; i++) {
      assert.deepEqual([answers[2 * i], answers[2 * i + 1]].sort(), [false, true], `${ids[i]} put back twice or never`);
    }
    assert.equal(await count(kvA, ["relay_due"]), N);
    for (const prefix of [["relay_dead"], ["relay_dead_by_destination"], ["relay_dead_by_hook"]]) {
      assert.equal(await count(kvA, prefix), 0, `left under ${prefix}`);
    }
    assert.deepEqual((await b.forwards(P)).map((f) => f.state), Array(N).fill("pending"));

    status = 200;
    app.received.length = 0;
    const worker = b.run();
    try {
      await until(async () => await count(kvA, ["relay_due"]) === 0, 10_000, "every redelivery made");
    } finally {
      await worker.stop();
    }
    assert.deepEqual(app.received.map((r) => r.id).sort(), [...ids].sort());
    assert.deepEqual((await a.forwards(P)).map((f) => f.state), Array(N).fill("delivered"));
  } finally {
    await a.close();
    await b.close();
    await app.close();
  }
});

Deno.test("a pinned destination removed by another process while its worker holds entries leaves no entry and no pending state", async () => {
  await using handles = await twoHandles();
  const { kvA, kvB } = handles;
  const answered = Promise.withResolvers<void>();
  // Each attempt waits until the removal is done, then fails (or says 410): each would write the entry again.
  const app = startApp(async (r) => {
    await answered.promise;
    return new Response(null, { status: r.body.includes('"index":0') ? 410 : 503 });
  });
  const a = createRelay(kvA, { allowPrivateNetwork: true, pollMs: 50 });
  const b = createRelay(kvB, { allowPrivateNetwork: true });
  try {
    await seedHooks(kvA);
    const pinned = await a.destinations.add({ url: app.url, pinned: true });
    const P = "e".repeat(64);
    await writeAll(kvA, a.write, Array.from({ length: N }, (_, i) => postback("h1", i, P)), N);
    const worker = a.run({ destinations: [pinned.id], concurrency: 4 });
    try {
      await app.waitFor(4);
      assert.equal(await b.destinations.remove(pinned.id), true);
      answered.resolve();
      // The four attempts end (their records are kept even when the entry is gone) before the worker stops.
      await until(async () => await count(kvA, ["relay_attempt"]) === 4, 10_000, "the four attempts recorded");
    } finally {
      await worker.stop();
    }
    assert.equal(await count(kvA, ["relay_due"]), 0);
    assert.equal(await count(kvA, ["relay_dead"]), 0);
    assert.deepEqual((await a.forwards(P)).filter((f) => f.state !== "delivered"), []);
    assert.equal(await a.destinations.get(pinned.id), null);
  } finally {
    await a.close();
    await b.close();
    await app.close();
  }
});

Deno.test("removes and updates of one destination at once by two processes: one remove says true, and nothing of it is left", async () => {
  await using handles = await twoHandles();
  const { kvA, kvB } = handles;
  const a = createRelay(kvA, { allowPrivateNetwork: true });
  const b = createRelay(kvB, { allowPrivateNetwork: true });
  try {
    await seedHooks(kvA);
    for (let round = 0; round < 10; round++) {
      const d = await a.destinations.add({ url: `http://127.0.0.1:9/${round}`, hookIds: ["h1"], unique: true });
      await writeAll(kvA, a.write, [postback("h1", round, "r".repeat(64))]);
      const [removedA, removedB, updated, disabled] = await Promise.all([
        a.destinations.remove(d.id),
        b.destinations.remove(d.id),
        b.destinations.update(d.id, { hookIds: ["h1", "h2"], unique: true }),
        a.destinations.update(d.id, { enabled: false }),
      ]);
      assert.deepEqual([removedA, removedB].sort(), [false, true], `round ${round}`);
      // An update that answered with the destination was made before the removal; one after it answers null.
      if (updated !== null) assert.deepEqual(updated.hookIds, ["h1", "h2"]);
      if (disabled !== null) assert.equal(disabled.enabled, false);
      assert.equal(await b.destinations.get(d.id), null);
    }
    const left: Deno.KvKey[] = [];
    for await (const e of kvA.list({ prefix: [] })) {
      // The shared partition's take counter stays (a removal's deletes bump it, as takes do).
      const shared = e.key[0] === "relay_take" && e.key[1] === "*";
      if (/^relay_(destination$|due|paused|dead|take)/.test(String(e.key[0])) && !shared) left.push(e.key);
      if (e.key[0] === "relay_destination_url") {
        assert.deepEqual(e.value, [], `${String(e.key[1])} names a removed one`);
      }
    }
    assert.deepEqual(left, []);
    assert.deepEqual(await a.forwards("r".repeat(64)), []);
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("update with ifEnabled: of three disables at once, one changes it and the others get null", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    const { id } = await relay.destinations.add({ url: "http://127.0.0.1:9/hooks" });
    const patch = { enabled: false, ifEnabled: true };
    const got = await Promise.all([1, 2, 3].map(() => relay.destinations.update(id, patch)));
    assert.equal(got.filter((d) => d !== null).length, 1, JSON.stringify(got));
    assert.equal((await relay.destinations.get(id))?.enabled, false);
    assert.equal(await relay.destinations.update(id, patch), null, "not enabled now: nothing written");
    const wrong = await relay.destinations.update(id, { enabled: true, ifEnabled: "no" as unknown as boolean })
      .catch((e) => e);
    assert.ok(wrong instanceof TypeError && /'ifEnabled' must be a boolean/.test(wrong.message), String(wrong));
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("update with ifHookIds: each of two handles takes its hook off at once; neither puts the other's back", async () => {
  await using handles = await twoHandles();
  await seedHooks(handles.kvA, ["h1", "h2", "h3"]);
  const [a, b] = [handles.kvA, handles.kvB].map((kv) => createRelay(kv, { allowPrivateNetwork: true }));
  try {
    const { id } = await a.destinations.add({ url: "http://127.0.0.1:9/hooks", hookIds: ["h1", "h2", "h3"] });
    // Both read ["h1", "h2", "h3"]; A takes h1 off, B takes h2 off, each writing back what it read less its hook.
    const read = ["h3", "h2", "h1"]; // any order
    const [byA, byB] = await Promise.all([
      a.destinations.update(id, { hookIds: ["h2", "h3"], ifHookIds: read }),
      b.destinations.update(id, { hookIds: ["h1", "h3"], ifHookIds: read }),
    ]);
    assert.equal([byA, byB].filter((d) => d !== null).length, 1, "one change lands, the other finds its list moved");
    const now = await a.destinations.get(id);
    const late = byA === null ? { relay: a, off: "h1" } : { relay: b, off: "h2" };
    // The one refused reads again and works its change out from what is there now.
    const again = await late.relay.destinations.update(id, {
      hookIds: now!.hookIds!.filter((h) => h !== late.off),
      ifHookIds: now!.hookIds,
    });
    assert.deepEqual(again?.hookIds, ["h3"], "both hooks taken off, none put back");
    assert.equal(
      await a.destinations.update(id, { enabled: false, ifHookIds: null }),
      null,
      "not every hook: unchanged",
    );
    assert.equal((await a.destinations.get(id))?.enabled, true);
    const wrong = await a.destinations.update(id, { enabled: false, ifHookIds: "h3" as unknown as string[] })
      .catch((e) => e);
    assert.ok(wrong instanceof TypeError && /'ifHookIds' must be a list of hook ids or null/.test(wrong.message));
    assert.equal((await a.destinations.get(id))?.enabled, true, "a refused patch writes nothing");
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});
