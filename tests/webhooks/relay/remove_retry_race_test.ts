// A worker that ends an attempt as a retry writes the entry again at a later
// due time. When that commit landed after a removal of its (unpinned)
// destination in another process listed the shared outbox, and before the
// removal deleted what it listed, the retried entry was behind the listing:
// it stayed in the outbox (its state for `forwards` deleted with the held
// copy) until due, a retry's wait (an hour here), for a worker to drop. The
// interleaving is forced: the remover's delete waits until the worker's
// attempt has ended in KV. Nothing of the entry may be left.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const P = "r".repeat(64);
const HOUR = 3_600_000;

/** Makes the commit after the first `free` of `kv` wait for `gate`; `reached` resolves when it starts waiting. */
function holdCommit(kv: Deno.Kv, free: number, gate: Promise<void>): Promise<void> {
  const reached = Promise.withResolvers<void>();
  let started = 0;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = async () => {
      if (started++ === free) {
        reached.resolve();
        await gate;
      }
      return await commit();
    };
    return op;
  };
  return reached.promise;
}

Deno.test("an entry retried while another process removes its destination is not left behind the removal, nor its state", async () => {
  const dir = await Deno.makeTempDir();
  const [kvA, kvB] = [await Deno.openKv(`${dir}/relay.kv`), await Deno.openKv(`${dir}/relay.kv`)];
  const answer = Promise.withResolvers<void>();
  const app = startApp(async () => {
    await answer.promise;
    return new Response("down", { status: 500 });
  });
  const a = createRelay(kvA, { allowPrivateNetwork: true, schedule: [HOUR], pollMs: 50 });
  const gate = Promise.withResolvers<void>();
  const listed = holdCommit(kvB, 1, gate.promise); // the removal's own commit goes; its first delete waits
  const b = createRelay(kvB, { allowPrivateNetwork: true });
  let later: ReturnType<typeof createRelay> | null = null;
  try {
    await seedHooks(kvA);
    const gone = await a.destinations.add({ url: app.url });
    await writeAll(kvA, a.write, [postback("h1", 0, P)]);
    const [{ entryId }] = await a.forwards(P);
    const worker = a.run();
    try {
      await app.waitFor(1); // taken, and its attempt under way
      const removing = b.destinations.remove(gone.id);
      await listed; // the removal listed the outbox: the held entry, not its retry
      answer.resolve(); // the attempt fails: a retry, due in an hour
      await until(async () => (await a.attempts(entryId)).length === 1, 10_000, "the attempt's end in KV");
      gate.resolve();
      assert.equal(await removing, true);
    } finally {
      answer.resolve();
      gate.resolve();
      await worker.stop();
    }
    assert.equal(await a.destinations.get(gone.id), null);

    later = createRelay(kvA, { pollMs: 50 }); // the next worker
    const next = later.run();
    try {
      await until(
        async () => {
          let due = 0;
          for await (const _ of kvA.list({ prefix: ["relay_due"] })) due++;
          return due === 0 && (await later!.forwards(P)).length === 0;
        },
        10_000,
        "the retried entry of the removed destination deleted",
      );
    } finally {
      await next.stop();
    }
  } finally {
    await later?.close();
    await a.close();
    await b.close();
    await app.close();
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
});
