// The relay's public calls given wrong input from outside (fast-check): each
// is a TypeError or RangeError whose message names what is wrong and holds no
// secret, and the KV is left exactly as it was (every key, value and
// versionstamp).

import assert from "node:assert/strict";
import fc from "fast-check";
import { createRelay } from "../../../webhooks/mod.ts";
import { seedHooks } from "./fixtures.ts";

/** Every entry of the KV: key, versionstamp and value, as text to compare. */
export async function snapshot(kv: Deno.Kv): Promise<string[]> {
  const rows: string[] = [];
  for await (const e of kv.list({ prefix: [] })) {
    rows.push(`${Deno.inspect(e.key)} ${e.versionstamp} ${Deno.inspect(e.value, { depth: 20 })}`);
  }
  return rows;
}

/** Anything that is not a non-empty string, as a caller might pass by mistake (a destination instead of its id). */
const notAnId = fc.oneof(
  fc.constant(""),
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.boolean(),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.record({ id: fc.string({ minLength: 1 }), url: fc.webUrl() }),
);

Deno.test("destinations.get(), update() and remove() refuse an id that is not a non-empty string, naming it, and change nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const added = await relay.destinations.add({ url: "http://127.0.0.1:9/hooks", hookIds: ["h1"] });
    const before = await snapshot(kv);
    await fc.assert(
      fc.asyncProperty(notAnId, async (id) => {
        const calls: Array<[string, () => Promise<unknown>]> = [
          ["get destination", () => relay.destinations.get(id as never)],
          ["update destination", () => relay.destinations.update(id as never, { enabled: false })],
          ["remove destination", () => relay.destinations.remove(id as never)],
        ];
        for (const [action, call] of calls) {
          // `remove(destination)` answered `false`, as for a destination that is not there: the mistake went unseen.
          await assert.rejects(call(), (e: Error) => {
            assert.ok(e instanceof TypeError, `${action}: ${e}`);
            assert.match(e.message, new RegExp(`^Cannot ${action}: 'id' must be a non-empty string, got `));
            assert.ok(!e.message.includes(added.secret.slice(6)));
            return true;
          });
        }
        assert.deepEqual(await snapshot(kv), before);
      }),
      { numRuns: 60 },
    );
    assert.equal((await relay.destinations.get(added.id))?.enabled, true);
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("destinations.add() and update() refuse hookIds with a hole or undefined, naming 'hookIds', and change nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    const added = await relay.destinations.add({ url: "http://127.0.0.1:9/hooks", hookIds: ["h1"] });
    const before = await snapshot(kv);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom("h1", "h2"), { maxLength: 5 }),
        fc.nat(),
        fc.boolean(),
        async (ids, at, hole) => {
          // `[, "h1"]` or `[undefined, "h1"]`: the check took the missing one for "none bad", and KV's own error
          // ("expected string, number, bigint...") named no argument.
          const hookIds: (string | undefined)[] = [...ids];
          hookIds.splice(at % (ids.length + 1), 0, undefined);
          if (hole) delete hookIds[at % (ids.length + 1)];
          const calls: Array<[string, () => Promise<unknown>]> = [
            ["add destination", () => relay.destinations.add({ url: "http://127.0.0.1:9/b", hookIds } as never)],
            ["update destination", () => relay.destinations.update(added.id, { hookIds } as never)],
          ];
          for (const [action, call] of calls) {
            await assert.rejects(call(), (e: Error) => {
              assert.ok(e instanceof TypeError, `${action}: ${e}`);
              assert.equal(e.message, `Cannot ${action}: 'hookIds' must hold non-empty strings, got undefined`);
              return true;
            });
          }
          assert.deepEqual(await snapshot(kv), before);
        },
      ),
      { numRuns: 40 },
    );
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("run(), deadLetters() and createRelay() refuse a field they do not take, and run() options that are not an object", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv);
  try {
    const before = await snapshot(kv);
    // A misspelt field was dropped without a word: `{ destination: id }` listed every destination's dead letters,
    // `{ concurency: 1 }` ran 16 at once, `{ attemptTimeout: 5000 }` kept 15 s.
    await assert.rejects(
      relay.deadLetters({ destination: "d1" } as never),
      (e: Error) =>
        e instanceof TypeError &&
        e.message ===
          `Cannot list dead letters: it takes only 'destinationId', 'hookId', 'cursor', 'limit' and 'newestFirst', got "destination"`,
    );
    assert.throws(
      () => relay.run({ concurency: 1 } as never),
      (e: Error) =>
        e instanceof TypeError &&
        e.message ===
          `Cannot run relay: it takes only 'signal', 'concurrency', 'destinations' and 'onAttempt', got "concurency"`,
    );
    assert.throws(
      () => createRelay(kv, { attemptTimeout: 5_000 } as never),
      (e: Error) =>
        e instanceof TypeError &&
        e.message ===
          `Cannot create relay: it takes only 'schedule', 'attemptTimeoutMs', 'leaseMs', 'allowPrivateNetwork', 'fetch', 'now' and 'pollMs', got "attemptTimeout"`,
    );
    for (const options of [5, "x", true, null]) {
      assert.throws(
        () => relay.run(options as never),
        (e: Error) =>
          e instanceof TypeError && e.message.startsWith("Cannot run relay: 'options' must be an object, got "),
        String(options),
      );
    }
    assert.throws(
      () => relay.run({ onAttempt: "log" } as never),
      (e: Error) =>
        e instanceof TypeError && e.message === `Cannot run relay: 'onAttempt' must be a function, got "log"`,
    );
    assert.deepEqual(await snapshot(kv), before);
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("deadLetters() names a limit that is not a number, whatever it is, and a wrong number as a RangeError", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv);
  try {
    await fc.assert(
      fc.asyncProperty(fc.anything({ withNullPrototype: true }), async (limit) => {
        fc.pre(limit !== undefined && typeof limit !== "number");
        // `{ limit: "5" }` said "got 5"; an object without a prototype broke the message itself ("Cannot convert
        // object to primitive value"), naming nothing.
        await assert.rejects(relay.deadLetters({ limit } as never), (e: Error) => {
          assert.ok(e instanceof TypeError, String(e));
          assert.match(e.message, /^Cannot list dead letters: 'limit' must be an integer from 1 to 1000, got /);
          return true;
        });
      }),
      { numRuns: 200 },
    );
    await assert.rejects(
      relay.deadLetters({ limit: "5" } as never),
      /'limit' must be an integer from 1 to 1000, got "5"$/,
    );
    await assert.rejects(
      relay.deadLetters({ limit: 0.5 }),
      (e: Error) => e instanceof RangeError && /'limit' must be an integer from 1 to 1000, got 0\.5$/.test(e.message),
    );
  } finally {
    await relay.close();
    kv.close();
  }
});

Deno.test("run() refuses a null concurrency, as every other null option, instead of running 16 at once", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv);
  try {
    // `null` is no default (a form field left empty, a config value missing): createRelay and deadLetters refuse it.
    assert.throws(
      () => relay.run({ concurrency: null } as never),
      (e: Error) =>
        e instanceof TypeError && e.message === "Cannot run relay: 'concurrency' must be an integer, got null",
    );
    for (const name of ["signal", "destinations", "onAttempt"]) {
      assert.throws(() => relay.run({ [name]: null } as never), TypeError, name);
    }
  } finally {
    await relay.close();
    kv.close();
  }
});
