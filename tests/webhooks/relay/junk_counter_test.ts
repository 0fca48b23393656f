/**
 * The relay's counters (["relay_take", partition], ["relay_outbox_bump"], ["relay_destinations_version"]) edited by
 * hand into junk, or left so by a bad write: a number, null, a string, an object. KV refuses a `sum` on any value
 * but a 64-bit counter, so each commit that bumps one threw "Failed to perform 'sum' mutation on a non-U64 value":
 * every take (nothing delivered again), every write of a postback, every add or removal of a destination.
 */

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const JUNK: unknown[] = [7, null, "junk", { n: 1 }];

/** A relay on a fresh KV whose `key` holds `junk`, a destination added first; `fn` runs on it. */
async function withJunk(
  key: Deno.KvKey,
  junk: unknown,
  fn: (ctx: {
    kv: Deno.Kv;
    relay: ReturnType<typeof createRelay>;
    app: ReturnType<typeof startApp>;
    id: string;
  }) => Promise<void>,
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10 });
  try {
    await seedHooks(kv);
    const { id } = await relay.destinations.add({ url: app.url });
    await kv.set(key, junk);
    await fn({ kv, relay, app, id });
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
}

Deno.test("a junk take counter holds back no delivery, shared or pinned", async () => {
  for (const junk of JUNK) {
    await withJunk(["relay_take", "*"], junk, async ({ kv, relay, app }) => {
      await writeAll(kv, relay.write, [postback("h1", 0)]);
      const worker = relay.run();
      await until(() => app.received.length === 1, 10_000, `delivered past a take counter of ${String(junk)}`);
      await worker.stop();
    });
    const kv = await Deno.openKv(":memory:");
    const app = startApp();
    const relay = createRelay(kv, { allowPrivateNetwork: true, pollMs: 10 });
    try {
      await seedHooks(kv);
      const { id } = await relay.destinations.add({ url: app.url, pinned: true });
      await kv.set(["relay_take", id], junk);
      await writeAll(kv, relay.write, [postback("h1", 0)]);
      const worker = relay.run({ destinations: [id] });
      await until(() => app.received.length === 1, 10_000, `pinned, past a take counter of ${String(junk)}`);
      await worker.stop();
    } finally {
      await relay.close();
      await app.close();
      kv.close();
    }
  }
});

Deno.test("a junk outbox counter is set right by a worker: postbacks are written and delivered", async () => {
  for (const junk of JUNK) {
    await withJunk(["relay_outbox_bump"], junk, async ({ kv, relay, app }) => {
      const worker = relay.run();
      await until(
        async () => (await kv.get(["relay_outbox_bump"])).value instanceof Deno.KvU64,
        5_000,
        `the outbox counter of ${String(junk)} set right`,
      );
      await writeAll(kv, relay.write, [postback("h1", 0)]);
      await until(() => app.received.length === 1, 10_000, "the delivery");
      await worker.stop();
    });
  }
});

Deno.test("a junk destinations version holds back no add, update or removal of a destination", async () => {
  for (const junk of JUNK) {
    await withJunk(["relay_destinations_version"], junk, async ({ relay, app, id }) => {
      const added = await relay.destinations.add({ url: `${app.url}other` });
      assert.equal((await relay.destinations.update(id, { enabled: false }))?.enabled, false);
      assert.equal(await relay.destinations.remove(added.id), true);
      assert.deepEqual((await relay.destinations.list()).map((d) => d.id), [id]);
    });
  }
});
