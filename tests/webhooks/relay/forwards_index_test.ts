// relay.forwards(postbackId, index) over a postback that has forwards: each
// index the call takes answers exactly the forwards of that item, whatever
// spelling of the number it is given (-0 is the item 0: Number("-0"),
// Math.round(-0.2) and -i for i = 0 all make it, and KV keys 0 and -0 apart).

import assert from "node:assert/strict";
import fc from "fast-check";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, writeAll } from "./fixtures.ts";

const P = "i".repeat(64);

Deno.test("relay.forwards(postbackId, index) answers the forwards of that item for any index it takes, -0 as 0", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: "http://127.0.0.1:9/a" });
    await relay.destinations.add({ url: "http://127.0.0.1:9/b", hookIds: ["h1"] });
    await writeAll(kv, relay.write, [0, 1, 2].map((i) => postback("h1", i, P)), 3);
    const all = await relay.forwards(P);
    assert.equal(all.length, 6);
    assert.equal((await relay.forwards(P, -0)).length, 2);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: -3, max: 5 }), fc.constant(-0), fc.double(), fc.constant(Number.MAX_SAFE_INTEGER)),
        async (index) => {
          let got;
          try {
            got = await relay.forwards(P, index);
          } catch (error) {
            assert.ok(error instanceof RangeError, String(error));
            assert.ok(!Number.isInteger(index) || index < 0, `${index} refused`);
            return;
          }
          assert.ok(Number.isInteger(index) && index >= 0, `${index} taken`);
          assert.deepEqual(got, all.filter((f) => f.index === index), `index ${Object.is(index, -0) ? "-0" : index}`);
        },
      ),
      { numRuns: 200 },
    );
  } finally {
    await relay.close();
    kv.close();
  }
});
