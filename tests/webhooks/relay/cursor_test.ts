// The cursor of relay.deadLetters(): one that no page of that list gave (made
// up, mistyped, or from another list) is a TypeError naming it. KV itself
// refuses only a cursor it cannot decode: a made-up but decodable one ("zzzz")
// read as an empty page with cursor "", which a caller takes for "the end".

import assert from "node:assert/strict";
import fc from "fast-check";
import { createRelay, type DeadLetterQuery } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

/** Five dead letters of h1 at one destination; `fn` gets the relay and that destination's id. */
async function withFiveDeadLetters(
  fn: (relay: ReturnType<typeof createRelay>, destinationId: string) => Promise<void>,
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const app = startApp(() => new Response("down", { status: 500 }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [], pollMs: 20 });
  const worker = relay.run();
  try {
    await seedHooks(kv);
    const { id } = await relay.destinations.add({ url: app.url, hookIds: ["h1"] });
    await writeAll(kv, relay.write, [0, 1, 2, 3, 4].map((i) => postback("h1", i)));
    await until(async () => (await relay.deadLetters()).values.length === 5, 10_000, "five dead letters");
    await worker.stop();
    await fn(relay, id);
  } finally {
    await worker.stop();
    await relay.close();
    await app.close();
    kv.close();
  }
}

const refused = (cursor: string) => (e: Error) =>
  e instanceof TypeError &&
  e.message === `Cannot list dead letters: 'cursor' must be one that a page of this list gave, got "${cursor}"`;

Deno.test("deadLetters() refuses a made-up cursor that KV can decode, naming it, instead of an empty last page", async () => {
  await withFiveDeadLetters(async (relay, destinationId) => {
    const lists: DeadLetterQuery[] = [
      {},
      { newestFirst: true },
      { destinationId },
      { hookId: "h1" },
      { hookId: "h1", newestFirst: true },
    ];
    for (const list of lists) {
      // Made up: "zzzz" read as the end of the list, "AAAA" as its start, "AmEA" (the key "a") as a place in it.
      for (const cursor of ["zzzz", "AAAA", "AmEA", "_w=="]) {
        await assert.rejects(relay.deadLetters({ ...list, cursor, limit: 2 }), refused(cursor), JSON.stringify(list));
      }
    }
    // A hook page's cursor (a time and an id) is no cursor of the list of every dead letter, nor the reverse.
    const hookCursor = (await relay.deadLetters({ hookId: "h1", limit: 2 })).cursor;
    const allCursor = (await relay.deadLetters({ limit: 2 })).cursor;
    await assert.rejects(relay.deadLetters({ cursor: hookCursor }), refused(hookCursor));
    await assert.rejects(relay.deadLetters({ hookId: "h1", cursor: allCursor }), refused(allCursor));
  });
});

Deno.test("deadLetters() pages every list by the cursors it gives, and refuses any other string (fast-check)", async () => {
  await withFiveDeadLetters(async (relay, destinationId) => {
    const lists: DeadLetterQuery[] = [{}, { destinationId }, { hookId: "h1" }, { hookId: "h1", newestFirst: true }];
    const given = new Set<string>();
    for (const list of lists) {
      const ids: string[] = [];
      let cursor = "";
      do {
        const page = await relay.deadLetters({ ...list, cursor, limit: 2 });
        ids.push(...page.values.map((l) => l.id));
        cursor = page.cursor;
        if (cursor) given.add(cursor);
      } while (cursor !== "" && ids.length < 10);
      assert.equal(new Set(ids).size, 5, JSON.stringify(list));
    }
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.base64String({ minLength: 1, maxLength: 60 }),
          fc.string({ minLength: 1 }),
          fc.string({ unit: "grapheme", minLength: 1 }),
        ),
        fc.constantFrom(...lists),
        async (cursor, list) => {
          fc.pre(cursor !== "" && !given.has(cursor));
          await assert.rejects(relay.deadLetters({ ...list, cursor }), (e: Error) => {
            assert.ok(e instanceof TypeError, String(e));
            assert.match(e.message, /^Cannot list dead letters: 'cursor' must be one that a page of this list gave/);
            return true;
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});

Deno.test("deadLetters() refuses the cursor of another list: another destination's, another hook's, the other order", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp(() => new Response("down", { status: 500 }));
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [], pollMs: 20 });
  const worker = relay.run();
  try {
    await seedHooks(kv);
    const a = await relay.destinations.add({ url: `${app.url}/a`, hookIds: ["h1"] });
    const b = await relay.destinations.add({ url: `${app.url}/b`, hookIds: ["h2"] });
    await writeAll(kv, relay.write, [0, 1, 2].map((i) => postback("h1", i, "a".repeat(64))));
    await writeAll(kv, relay.write, [0, 1, 2].map((i) => postback("h2", i, "b".repeat(64))));
    await until(async () => (await relay.deadLetters()).values.length === 6, 10_000, "six dead letters");
    await worker.stop();
    // Each pair: where the cursor was given, where it is used. Taken, each read its list from a wrong place (B's
    // letters older than A's cursor skipped, h1's time of death read in h2's list, a page read again backwards).
    const pairs: Array<[DeadLetterQuery, DeadLetterQuery]> = [
      [{ destinationId: a.id }, { destinationId: b.id }],
      [{}, { destinationId: b.id }],
      [{ hookId: "h1" }, { hookId: "h2" }],
      [{ hookId: "h1", newestFirst: true }, { hookId: "h2", newestFirst: true }],
      [{ destinationId: a.id }, { destinationId: a.id, newestFirst: true }],
      [{ hookId: "h1" }, { hookId: "h1", newestFirst: true }],
    ];
    for (const [from, to] of pairs) {
      const { cursor } = await relay.deadLetters({ ...from, limit: 1 });
      assert.notEqual(cursor, "");
      await assert.rejects(relay.deadLetters({ ...to, cursor }), refused(cursor), JSON.stringify([from, to]));
      const total = from.destinationId || from.hookId ? 3 : 6; // its own list goes on after the first letter
      assert.equal((await relay.deadLetters({ ...from, cursor })).values.length, total - 1);
    }
  } finally {
    await worker.stop();
    await relay.close();
    await app.close();
    kv.close();
  }
});
