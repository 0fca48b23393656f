// A destination's removal mark (["relay_removed", id]) set by hand, or left by
// a bad write, beside the destination's live record. A removal deletes the
// record in the commit that sets the mark, so a mark beside a record is junk:
// it must not make a worker drop that live destination's entries (a refused
// retry read the mark and deleted the entry; housekeeping deleted every
// waiting entry of a mark not yet "dropped"). The mark is cleared instead,
// and the entries are delivered.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

async function withLive(
  fn: (
    ctx: { kv: Deno.Kv; relay: ReturnType<typeof createRelay>; id: string; app: ReturnType<typeof startApp> },
  ) => Promise<void>,
  schedule = [50, 50, 50],
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10, schedule });
  try {
    await seedHooks(kv);
    const { id } = await relay.destinations.add({ url: app.url, hookIds: ["h1"] });
    await fn({ kv, relay, id, app });
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
}

Deno.test("a hand-set removal mark on a live destination does not make a failed attempt's retry drop the entry", async () => {
  await withLive(async ({ kv, relay, id, app }) => {
    let calls = 0;
    app.answer = async () => {
      // The mark appears while the first attempt is out (after the worker's housekeeping at its start).
      if (calls++ === 0) await kv.set(["relay_removed", id], { pinned: false, dropped: true });
      return new Response("down", { status: calls === 1 ? 500 : 200 });
    };
    await writeAll(kv, relay.write, [postback("h1", 0, "a".repeat(64))]);
    const worker = relay.run({ concurrency: 2 });
    try {
      await app.waitFor(2, 10_000);
      assert.equal(app.received[0].id, app.received[1].id, "the retry of the same entry");
      await until(async () => (await relay.forwards("a".repeat(64)))[0]?.state === "delivered", 10_000, "delivered");
      assert.equal((await kv.get(["relay_removed", id])).versionstamp, null, "the junk mark is cleared");
      assert.ok(await relay.destinations.get(id), "the destination is still there");
    } finally {
      await worker.stop();
    }
  });
});

Deno.test("a hand-set removal mark not yet dropped on a live destination: housekeeping keeps its entries", async () => {
  await withLive(async ({ kv, relay, id, app }) => {
    app.answer = () => new Response("busy", { status: 503 });
    const ids = ["b", "c", "d"].map((c) => c.repeat(64));
    const states = async () => (await Promise.all(ids.map((p) => relay.forwards(p)))).map((f) => f[0]?.state);
    await writeAll(kv, relay.write, ids.map((p) => postback("h1", 0, p)));
    const first = relay.run({ concurrency: 2 });
    await app.waitFor(3, 10_000);
    await until(async () => (await states()).every((s) => s === "pending"), 10_000, "three retries waiting");
    await first.stop();
    await kv.set(["relay_removed", id], { pinned: false, dropped: false });
    const second = relay.run({ concurrency: 2 }); // its housekeeping runs at its start
    try {
      await until(
        async () => (await kv.get<{ dropped?: boolean }>(["relay_removed", id])).value?.dropped !== false,
        10_000,
        "housekeeping's look at the mark",
      );
      assert.deepEqual(await states(), ["pending", "pending", "pending"], "the live destination's retries kept");
      assert.equal((await kv.get(["relay_removed", id])).versionstamp, null, "the junk mark is cleared");
      assert.ok(await relay.destinations.get(id), "the destination is still there");
    } finally {
      await second.stop();
    }
  }, [60_000]);
});
