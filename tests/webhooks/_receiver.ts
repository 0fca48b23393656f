// Fixtures of the receiver tests: a KV with two communities and a hook each,
// a receiver on a fixed clock that records what it hands on and reports, and
// request builders (signed headers, counted body streams).

import {
  createReceiver,
  createWebhooks,
  type Postback,
  type Receiver,
  type ReceiverAttempt,
  type ReceiverOptions,
  signJiveExtn,
  type Webhooks,
} from "../../webhooks/mod.ts";

/** The fixed time of the tests, ms. */
export const NOW = 1_750_000_000_000;
export const SECRET_A = btoa("community A's client secret, 32b");
export const SECRET_B = btoa("community B's client secret, 32b");
export const REF_A = "https://a.example/api/core/v3/webhooks/1";
export const REF_B = "https://b.example/api/core/v3/webhooks/2";
export const SIGN_A = { clientId: "client-a", jiveUrl: "https://a.example", tenantId: "tenant-a" };
export const SIGN_B = { clientId: "client-b", jiveUrl: "https://b.example", tenantId: "tenant-b" };

/** A receiver over a fresh `:memory:` KV, with what it did. */
export interface Bench {
  kv: Deno.Kv;
  hooks: Webhooks;
  receiver: Receiver;
  clock: { now: number };
  delivered: Postback[];
  attempts: ReceiverAttempt[];
}

/** Saves the two communities (A and B) and a hook of each. */
export async function seed(hooks: Webhooks): Promise<void> {
  await hooks.communities.save({
    name: "A",
    tenantId: "tenant-a",
    baseUrl: "https://a.example",
    clientId: "client-a",
    clientSecret: SECRET_A,
  });
  await hooks.communities.save({
    name: "B",
    tenantId: "tenant-b",
    baseUrl: "https://b.example",
    clientId: "client-b",
    clientSecret: SECRET_B,
  });
  await hooks.save({ id: "hook-a", tenantId: "tenant-a", entity: { id: "1", resources: { self: { ref: REF_A } } } });
  await hooks.save({ id: "hook-b", tenantId: "tenant-b", entity: { id: "2", resources: { self: { ref: REF_B } } } });
}

/** Runs `fn` with a seeded receiver on a fixed clock; closes the KV after. */
export async function withReceiver(
  fn: (bench: Bench) => Promise<void>,
  options: Partial<ReceiverOptions> = {},
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    const clock = { now: NOW };
    const delivered: Postback[] = [];
    const attempts: ReceiverAttempt[] = [];
    const receiver = createReceiver(hooks, {
      onPostback: (postback) => {
        delivered.push(postback);
      },
      onAttempt: (attempt) => {
        attempts.push(attempt);
      },
      now: () => clock.now,
      ...options,
    });
    await fn({ kv, hooks, receiver, clock, delivered, attempts });
  } finally {
    try {
      kv.close();
    } catch {
      // A test closed it already.
    }
  }
}

/** A header of community A (or `params`), signed at `timestamp` (default {@linkcode NOW}). */
export function signA(timestamp = NOW, params = SIGN_A, secret = SECRET_A): Promise<string> {
  return signJiveExtn({ ...params, timestamp }, secret);
}

/** An activity item naming `ref`. */
export function item(ref = REF_A, verb = "jive:created"): { webhook: string; activity: Record<string, unknown> } {
  return { webhook: ref, activity: { verb, title: `A ${verb}` } };
}

/** A POST with these headers and body. */
export function post(
  headers: Record<string, string>,
  body: BodyInit | null,
  method = "POST",
): Request {
  return new Request("http://127.0.0.1/hooks", { method, headers, body });
}

/** A body stream that counts the bytes pulled from it, and says whether it was cancelled; `total` may be `Infinity`. */
export function countedStream(
  total: number,
  chunkBytes = 64 * 1024,
  fill = 0x20,
): { stream: ReadableStream<Uint8Array>; pulled: () => number; cancelled: () => boolean } {
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      const n = Math.min(chunkBytes, total - pulled);
      pulled += n;
      controller.enqueue(new Uint8Array(n).fill(fill));
    },
    cancel() {
      cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, pulled: () => pulled, cancelled: () => cancelled };
}
