// The set-up the "retry during a removal" tests share (remove_retry_race_test.ts
// and remove_retry_refused_test.ts): two processes on one KV file; in one, a
// worker attempts the one entry of a destination, whose app answers 500 (a
// retry, due in an hour) once told to; the other will remove that destination,
// its commits changed first by the test (held, or refused as by a kill).

import { createRelay, type Relay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, writeAll } from "./fixtures.ts";

const HOUR = 3_600_000;

/** What a retry-during-removal test gets, its entry's attempt under way. */
export interface RetryDuringRemoval {
  /** The KV of the worker's process. */
  kvA: Deno.Kv;
  /** The worker's relay: it holds the destination, and retries an hour after a failure. */
  a: Relay;
  /** The relay of the process that removes the destination. */
  b: Relay;
  /** The destination to remove. */
  destinationId: string;
  /** Its one entry, the one under way. */
  entryId: string;
  /** Ends the attempt under way: the app answers 500, so the worker writes a retry. */
  fail(): void;
  /** Stops the worker (again: a no-op). */
  stopWorker(): Promise<void>;
}

/**
 * Runs `fn` once the worker has taken the entry of postback `p` and its attempt is under way, `hold` having changed
 * the removing process's KV before its relay was made; the worker is stopped and everything closed afterwards.
 */
export async function withRetryDuringRemoval(
  p: string,
  hold: (kvB: Deno.Kv) => void,
  fn: (at: RetryDuringRemoval) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  const [kvA, kvB] = [await Deno.openKv(`${dir}/relay.kv`), await Deno.openKv(`${dir}/relay.kv`)];
  const answer = Promise.withResolvers<void>();
  const app = startApp(async () => {
    await answer.promise;
    return new Response("down", { status: 500 });
  });
  const a = createRelay(kvA, { allowPrivateNetwork: true, schedule: [HOUR], pollMs: 50 });
  hold(kvB);
  const b = createRelay(kvB, { allowPrivateNetwork: true });
  try {
    await seedHooks(kvA);
    const gone = await a.destinations.add({ url: app.url });
    await writeAll(kvA, a.write, [postback("h1", 0, p)]);
    const [{ entryId }] = await a.forwards(p);
    const worker = a.run();
    let stopped: Promise<void> | undefined;
    const stopWorker = () => stopped ??= worker.stop();
    try {
      await app.waitFor(1); // taken, and its attempt under way
      await fn({ kvA, a, b, destinationId: gone.id, entryId, fail: () => answer.resolve(), stopWorker });
    } finally {
      answer.resolve();
      await stopWorker();
    }
  } finally {
    await a.close();
    await b.close();
    await app.close();
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The outbox's keys in `kv`. */
export async function dueKeys(kv: Deno.Kv): Promise<number> {
  let due = 0;
  for await (const _ of kv.list({ prefix: ["relay_due"] })) due++;
  return due;
}
