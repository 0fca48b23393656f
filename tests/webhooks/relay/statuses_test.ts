// API.md, "Relay": "A 2xx answer delivers. Anything else ... fails the
// attempt." Each status is the answer to one entry of a destination whose
// schedule has no wait, so a failed attempt is a dead letter at once.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const DELIVER = [200, 201, 202, 204, 206, 299];
const FAIL = [300, 301, 304, 400, 401, 404, 408, 409, 422, 500, 501, 502, 504, 599];

Deno.test("relay delivers on any 2xx answer and fails the attempt on any other status", async () => {
  const kv = await Deno.openKv(":memory:");
  const statuses = [...DELIVER, ...FAIL];
  const app = startApp((r) => {
    const status = statuses[JSON.parse(r.body).data.index];
    return new Response(status === 204 || status === 304 ? null : "answer", { status });
  });
  const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [] });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    const worker = relay.run();
    await writeAll(kv, relay.write, statuses.map((_, i) => postback("h1", i)));
    await app.waitFor(statuses.length);
    await until(async () => (await relay.deadLetters()).values.length === FAIL.length, 10_000, "the dead letters");
    await worker.stop();
    const idOf = new Map(app.received.map((r) => [statuses[JSON.parse(r.body).data.index], r.id]));
    assert.equal(app.received.length, statuses.length, "one attempt each, none sent again");
    const dead = new Set((await relay.deadLetters()).values.map((d) => d.id));
    for (const status of DELIVER) {
      const id = idOf.get(status)!;
      assert.ok(!dead.has(id), `${status} delivers`);
      assert.deepEqual((await relay.attempts(id)).map((a) => a.status), [status]);
    }
    for (const status of FAIL) {
      const id = idOf.get(status)!;
      assert.ok(dead.has(id), `${status} fails the attempt`);
      assert.deepEqual((await relay.attempts(id)).map((a) => a.status), [status]);
    }
    // No status but 410 disables the destination.
    assert.equal((await relay.destinations.list())[0].enabled, true);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
});
