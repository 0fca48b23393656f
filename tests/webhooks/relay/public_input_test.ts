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
