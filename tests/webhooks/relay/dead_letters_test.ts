// Dead letters found by hook and by id: relay.deadLetters({ hookId }) reads
// a page of one hook's dead letters (not every dead letter of a destination
// of every hook), relay.deadLetter(id) reads one.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createRelay, type DeadLetter } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

/** Makes `h1` dead letters of h1 and `h2` of h2 at one destination of every hook; resolves with them. */
async function withDeadLetters(
  h1: number,
  h2: number,
  fn: (relay: ReturnType<typeof createRelay>, kv: Deno.Kv, all: DeadLetter[]) => Promise<void>,
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  let status = 500;
  const app = startApp(() => new Response("no", { status }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [1] });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    const items = [
      ...Array.from({ length: h1 }, (_, i) => postback("h1", 0, `a${i}`)),
      ...Array.from({ length: h2 }, (_, i) => postback("h2", 0, `b${i}`)),
    ];
    await writeAll(kv, relay.write, items, 10);
    const worker = relay.run();
    let all: DeadLetter[] = [];
    await until(async () => (all = (await relay.deadLetters({ limit: 1000 })).values).length === h1 + h2, 20_000);
    await worker.stop();
    status = 200;
    await fn(relay, kv, all);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
}

Deno.test("relay.deadLetters({ hookId }) pages one hook's dead letters in the order they died, none of another hook's", async () => {
  await withDeadLetters(12, 30, async (relay, _kv, all) => {
    const mine = all.filter((l) => l.hookId === "h1").sort((a, b) => b.deadAt - a.deadAt || (a.id < b.id ? 1 : -1));
    const seen: DeadLetter[] = [];
    let cursor = "";
    let pages = 0;
    do {
      // Two readers of one page at once read the same.
      const [page, again] = await Promise.all([
        relay.deadLetters({ hookId: "h1", newestFirst: true, limit: 5, cursor }),
        relay.deadLetters({ hookId: "h1", newestFirst: true, limit: 5, cursor }),
      ]);
      assert.deepEqual(again, page);
      assert.ok(page.values.length <= 5);
      seen.push(...page.values);
      cursor = page.cursor;
      pages++;
    } while (cursor !== "");
    assert.equal(pages, 3);
    assert.deepEqual(seen.map((l) => l.id), mine.map((l) => l.id));
    const oldest = await relay.deadLetters({ hookId: "h1", limit: 100 });
    assert.deepEqual(oldest.values.map((l) => l.id), [...mine].reverse().map((l) => l.id));
    assert.equal(oldest.cursor, "");
    assert.equal((await relay.deadLetters({ hookId: "h2", limit: 1000 })).values.length, 30);
    assert.deepEqual(await relay.deadLetters({ hookId: "nobody" }), { values: [], cursor: "" });
  });
});

Deno.test("relay.deadLetter() reads one dead letter; a redelivered one that dies again is listed once by its hook", async () => {
  await withDeadLetters(1, 1, async (relay, _kv, all) => {
    const letter = all.find((l) => l.hookId === "h1")!;
    assert.deepEqual(await relay.deadLetter(letter.id), letter);
    assert.equal(await relay.deadLetter("msg_none"), null);
    assert.equal(await relay.deadLetter("x".repeat(3000)), null); // too long for a key: no such letter
    assert.equal(await relay.redeliver("x".repeat(3000)), false);
    await assert.rejects(() => relay.deadLetter(""), TypeError);
    // Sent again to an app that still fails, it dies again: its hook's list names it once, with its new death.
    const failing = createRelay(_kv, { allowPrivateNetwork: true, schedule: [1] });
    await failing.destinations.update(letter.destinationId, { url: "http://127.0.0.1:9/refused" });
    assert.equal(await relay.redeliver(letter.id), true);
    assert.equal(await relay.deadLetter(letter.id), null);
    const worker = failing.run();
    let again: DeadLetter | null = null;
    await until(async () => (again = await relay.deadLetter(letter.id)) !== null, 10_000, "the second death");
    await worker.stop();
    await failing.close();
    const listed = (await relay.deadLetters({ hookId: "h1" })).values;
    assert.deepEqual(listed.map((l) => [l.id, l.deadAt]), [[letter.id, again!.deadAt]]);
  });
});

Deno.test("relay.deadLetters({ hookId }) finds the dead letters an earlier version stored without its hook index", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv);
  try {
    // As an earlier version stored them: the letter and its copy by destination, no entry by hook.
    const letters = Array.from({ length: 250 }, (_, i): DeadLetter => ({
      id: `msg_${String(i).padStart(26, "0")}`,
      destinationId: "d1",
      hookId: i % 2 === 0 ? "h1" : "h2",
      tenantId: "t1",
      postbackId: `p${i}`,
      index: 0,
      activity: { verb: "jive:created" },
      acceptedAt: i,
      attempts: 8,
      deadAt: 1_000 + i,
      reason: "HTTP 500",
    }));
    for (const letter of letters) {
      await kv.atomic().set(["relay_dead", letter.id], letter).set(
        ["relay_dead_by_destination", "d1", letter.id],
        null,
      ).commit();
    }
    const [a, b] = await Promise.all([
      relay.deadLetters({ hookId: "h1", limit: 1000, newestFirst: true }),
      relay.deadLetters({ hookId: "h2", limit: 1000 }),
    ]);
    assert.deepEqual(
      a.values.map((l) => l.deadAt),
      letters.filter((l) => l.hookId === "h1").map((l) => l.deadAt).reverse(),
    );
    assert.equal(b.values.length, 125);
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("relay.deadLetters() and deadLetter() refuse what is not an id or a query, and never fail on any string", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv);
  try {
    await assert.rejects(() => relay.deadLetters({ hookId: "h1", destinationId: "d1" }), /not both/);
    await assert.rejects(() => relay.deadLetters({ hookId: "" }), TypeError);
    await assert.rejects(() => relay.deadLetters({ newestFirst: "yes" as never }), /'newestFirst' must be a boolean/);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ unit: "binary", maxLength: 80 }), fc.string({ minLength: 200, maxLength: 3000 })),
        async (text) => {
          for (const call of [() => relay.deadLetters({ hookId: text }), () => relay.deadLetter(text)]) {
            try {
              const got = await call();
              assert.ok(got === null || ("values" in got && got.values.length === 0));
            } catch (error) {
              assert.ok(error instanceof TypeError, String(error));
              assert.ok(text === "" || text.length > 256, `refused ${JSON.stringify(text.slice(0, 40))}`);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  } finally {
    await relay.close();
    kv.close();
  }
});
