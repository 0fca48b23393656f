// API.md's relay statements that no other test held: an attempt without an
// answer (a refused connection, or none within attemptTimeoutMs) fails and is
// tried again under the same webhook-id; `run({ signal })` stops the worker
// when the signal aborts; `deadLetters` pages every dead letter, and one
// destination's, by `cursor`; a destination's shape in list(), get() and update(),
// and an update of its URL taking the next postback there.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

Deno.test("an attempt that gets no answer within attemptTimeoutMs fails, and the next one carries the same webhook-id", async () => {
  const kv = await Deno.openKv(":memory:");
  const hang = Promise.withResolvers<void>();
  let calls = 0;
  const app = startApp(async () => {
    if (++calls > 1) return new Response("thanks");
    await hang.promise; // the first answer never comes in time
    return new Response("too late");
  });
  const relay = createRelay(kv, { allowPrivateNetwork: true, attemptTimeoutMs: 300, leaseMs: 5_000, schedule: [50] });
  const worker = relay.run();
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    const postbackId = "n".repeat(64);
    await writeAll(kv, relay.write, [postback("h1", 0, postbackId)]);
    await until(async () => (await relay.forwards(postbackId))[0]?.state === "delivered", 10_000, "the delivery");
    const [forward] = await relay.forwards(postbackId);
    assert.equal(forward.attempts, 2);
    const attempts = await relay.attempts(forward.entryId);
    assert.deepEqual(attempts.map((a) => [a.status, a.error]), [[0, "No answer within 0.3 s"], [200, undefined]]);
    assert.ok(attempts[0].durationMs >= 290 && attempts[0].durationMs < 3_000, `${attempts[0].durationMs} ms`);
    assert.deepEqual(app.received.map((r) => r.id), [forward.entryId, forward.entryId]);
  } finally {
    hang.resolve();
    await worker.stop();
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("an attempt whose connection is refused fails with status 0 and stays pending for the next one", async () => {
  const kv = await Deno.openKv(":memory:");
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close(); // nothing listens there now: the connection is refused
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [3_600_000] });
  const worker = relay.run();
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: `http://127.0.0.1:${port}/hooks` });
    const postbackId = "r".repeat(64);
    await writeAll(kv, relay.write, [postback("h1", 0, postbackId)]);
    await until(async () => (await relay.forwards(postbackId))[0]?.attempts === 1, 10_000, "the attempt");
    const [forward] = await relay.forwards(postbackId);
    assert.equal(forward.state, "pending");
    assert.ok(forward.nextAttemptAt !== null && forward.nextAttemptAt >= Date.now() + 3_000_000);
    const [attempt] = await relay.attempts(forward.entryId);
    assert.equal(attempt.status, 0);
    assert.match(attempt.error!, new RegExp(`^Cannot reach 127\\.0\\.0\\.1:${port}`));
    assert.deepEqual((await relay.deadLetters()).values, []);
  } finally {
    await worker.stop();
    await relay.close();
    kv.close();
  }
});

Deno.test("run({ signal }) stops the worker when the signal aborts: what is written after is left in the outbox", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 20 });
  const controller = new AbortController();
  const worker = relay.run({ signal: controller.signal });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    await writeAll(kv, relay.write, [postback("h1", 0, "a".repeat(64))]);
    await app.waitFor(1);
    controller.abort();
    await new Promise((r) => setTimeout(r, 200)); // no stop() called: the signal alone ends it
    await writeAll(kv, relay.write, [postback("h1", 0, "b".repeat(64))]);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(app.received.length, 1);
    const [waiting] = await relay.forwards("b".repeat(64));
    assert.deepEqual([waiting.state, waiting.attempts], ["pending", 0]);
    // Another worker takes it.
    const next = relay.run();
    await app.waitFor(2);
    await next.stop();
  } finally {
    controller.abort();
    await worker.stop();
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("deadLetters() pages every dead letter, and one destination's, by cursor until the cursor is empty", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp(() => new Response("down", { status: 500 }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [], pollMs: 20 });
  const worker = relay.run();
  try {
    await seedHooks(kv);
    const first = await relay.destinations.add({ url: app.url, hookIds: ["h1"] });
    await relay.destinations.add({ url: `${app.url}/other`, hookIds: ["h2"] });
    await writeAll(kv, relay.write, [0, 1, 2, 3, 4].map((i) => postback("h1", i)));
    await writeAll(kv, relay.write, [0, 1].map((i) => postback("h2", i, "q".repeat(64))));
    await until(async () => (await relay.deadLetters()).values.length === 7, 10_000, "seven dead letters");
    const pages = async (destinationId?: string): Promise<string[][]> => {
      const out: string[][] = [];
      let cursor = "";
      do {
        const page = await relay.deadLetters({ ...(destinationId ? { destinationId } : {}), cursor, limit: 2 });
        out.push(page.values.map((d) => d.id));
        cursor = page.cursor;
      } while (cursor !== "" && out.length < 10);
      return out;
    };
    const all = await pages();
    assert.deepEqual(all.map((p) => p.length), [2, 2, 2, 1]);
    assert.equal(new Set(all.flat()).size, 7);
    const own = await pages(first.id);
    assert.deepEqual(own.map((p) => p.length), [2, 2, 1]);
    const letters = (await relay.deadLetters()).values;
    assert.deepEqual(
      own.flat().sort(),
      letters.filter((d) => d.destinationId === first.id).map((d) => d.id).sort(),
    );
  } finally {
    await worker.stop();
    await relay.close();
    await app.close();
    kv.close();
  }
});

Deno.test("a destination is { id, url, hookIds?, enabled, pinned, createdAt } in list(), get() and update(); add() adds its secret", async () => {
  const kv = await Deno.openKv(":memory:");
  const before = startApp();
  const after = startApp();
  const createdAt = Date.UTC(2026, 0, 1);
  const relay = createRelay(kv, { allowPrivateNetwork: true, now: () => createdAt, pollMs: 20 });
  try {
    await seedHooks(kv);
    const { secret, ...view } = await relay.destinations.add({ url: before.url, hookIds: ["h1"] });
    assert.match(secret, /^whsec_/);
    assert.deepEqual(view, { id: view.id, url: before.url, hookIds: ["h1"], enabled: true, pinned: false, createdAt });
    assert.deepEqual(await relay.destinations.get(view.id), view);
    const { secret: _, ...every } = await relay.destinations.add({ url: "http://127.0.0.1:9/every", pinned: true });
    assert.deepEqual(every, { id: every.id, url: "http://127.0.0.1:9/every", enabled: true, pinned: true, createdAt });
    const listed = await relay.destinations.list();
    assert.deepEqual(listed.length, 2);
    assert.deepEqual(listed.find((d) => d.id === view.id), view);
    assert.deepEqual(listed.find((d) => d.id === every.id), every); // no hookIds: every hook
    assert.equal(await relay.destinations.remove(every.id), true);
    // update takes the URL: the next postback goes to the new one.
    assert.deepEqual(await relay.destinations.update(view.id, { url: after.url }), { ...view, url: after.url });
    const worker = relay.run();
    await writeAll(kv, relay.write, [postback("h1")]);
    await after.waitFor(1);
    await worker.stop();
    assert.equal(before.received.length, 0);
  } finally {
    await relay.close();
    await before.close();
    await after.close();
    kv.close();
  }
});
