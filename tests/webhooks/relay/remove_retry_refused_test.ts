// A retry whose commit is refused because its destination was removed (the removal's mark) is not a lost lease:
// no worker will ever deliver it. Here the removal's process dies (its KV commits fail) after the commit that
// removes the destination and before it deletes the waiting entries, while a worker is attempting one of them. The
// attempt fails: its retry is refused, and the entry must go at once, with its state for `forwards` (keeping the
// attempt's record), not sit leased for the lease's 30 s showing as pending, until a worker retakes it and drops it.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const P = "q".repeat(64);
const HOUR = 3_600_000;

/** Makes every commit of `kv` after the first `free` throw, as a process killed there would leave them undone. */
function dieAfter(kv: Deno.Kv, free: number): void {
  let started = 0;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = () => started++ < free ? commit() : Promise.reject(new Error("killed"));
    return op;
  };
}

/** The outbox's keys. */
async function dueKeys(kv: Deno.Kv): Promise<number> {
  let due = 0;
  for await (const _ of kv.list({ prefix: ["relay_due"] })) due++;
  return due;
}

Deno.test("a retry refused because its destination was removed drops the entry at once, its attempt kept", async () => {
  const dir = await Deno.makeTempDir();
  const [kvA, kvB] = [await Deno.openKv(`${dir}/relay.kv`), await Deno.openKv(`${dir}/relay.kv`)];
  const answer = Promise.withResolvers<void>();
  const app = startApp(async () => {
    await answer.promise;
    return new Response("down", { status: 500 });
  });
  const a = createRelay(kvA, { allowPrivateNetwork: true, schedule: [HOUR], pollMs: 50 });
  dieAfter(kvB, 1); // the removal's own commit goes; the deletes of its entries never come
  const b = createRelay(kvB, { allowPrivateNetwork: true });
  try {
    await seedHooks(kvA);
    const gone = await a.destinations.add({ url: app.url });
    await writeAll(kvA, a.write, [postback("h1", 0, P)]);
    const [{ entryId }] = await a.forwards(P);
    const worker = a.run();
    try {
      await app.waitFor(1); // taken, and its attempt under way
      await assert.rejects(b.destinations.remove(gone.id), /killed/);
      assert.equal(await a.destinations.get(gone.id), null);
      answer.resolve(); // the attempt fails: a retry, which the removal's mark refuses
      await until(async () => (await a.attempts(entryId)).length === 1, 10_000, "the attempt's record");
      await until(
        async () => (await dueKeys(kvA)) === 0 && (await a.forwards(P)).length === 0,
        3_000,
        "the refused retry's entry and its state deleted (not left leased for 30 s)",
      );
      assert.equal((await a.attempts(entryId)).length, 1, "the attempt's record is kept");
    } finally {
      answer.resolve();
      await worker.stop();
    }
  } finally {
    await a.close();
    await b.close();
    await app.close();
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
});
