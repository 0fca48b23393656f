// A postback accepted while its relay's list was stale is stored as a
// fan-out record, turned into entries by a worker "for the destinations that
// existed when it was written" (docs/relay.md). A destination enabled then,
// and disabled before a worker turned the record (an operator's Disable while
// postbacks flow), must keep that postback waiting, as it keeps the entries
// it had: "Nothing waiting is lost" while paused. It is delivered once the
// destination is enabled again; it must not be dropped with no trace.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { count } from "./_sleepy.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const P = "d".repeat(64);

Deno.test("a fan-out record written while its destination was enabled waits through a Disable and goes once enabled", async () => {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const options = { allowPrivateNetwork: true, pollMs: 50 };
  const operator = createRelay(kv, options);
  const writer = createRelay(kv, options); // its list not read: its write is a fan-out record
  try {
    await seedHooks(kv);
    const destination = await operator.destinations.add({ url: app.url });
    await writeAll(kv, writer.write, [postback("h1", 0, P)]);
    assert.equal(await count(kv, ["relay_fanout"]), 1);
    // Disabled before any worker turned the record.
    assert.equal((await operator.destinations.update(destination.id, { enabled: false }))?.enabled, false);
    const worker = operator.run();
    try {
      await until(async () => await count(kv, ["relay_fanout"]) === 0, 5_000, "the record turned");
      assert.equal(app.received.length, 0, "sent to a disabled destination");
      await operator.destinations.update(destination.id, { enabled: true });
      await until(() => app.received.length === 1, 5_000, "the postback forwarded once enabled again");
    } finally {
      await worker.stop();
    }
    // Written while it is disabled: no entry, as for a fresh list (paused_test.ts).
    const later = createRelay(kv, options);
    try {
      await operator.destinations.update(destination.id, { enabled: false });
      await writeAll(kv, later.write, [postback("h1", 1, P)]);
      const again = operator.run();
      try {
        await until(async () => await count(kv, ["relay_fanout"]) === 0, 5_000, "the second record turned");
      } finally {
        await again.stop();
      }
      assert.deepEqual((await operator.forwards(P, 1)).filter((f) => f.destinationId !== null), []);
    } finally {
      await later.close();
    }
  } finally {
    await operator.close();
    await writer.close();
    await app.close();
    kv.close();
  }
});
