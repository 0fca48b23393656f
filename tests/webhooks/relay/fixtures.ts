// Fixtures of the relay tests, shared with the CLI's listen test and the
// console's forwarding test: a test app on 127.0.0.1 (port 0) that records
// every request and answers as told, a KV with a hook, and postbacks written
// through `relay.write` in their own commit.

import { createWebhooks, type Postback } from "../../../webhooks/mod.ts";

/** One request the app received. */
export interface Received {
  /** The request's method. */
  method: string;
  id: string;
  timestamp: string;
  signature: string;
  contentType: string;
  body: string;
  /** Real time of arrival (performance.now()). */
  at: number;
}

/** A test app: where the relay delivers. */
export interface App {
  url: string;
  received: Received[];
  /** How the app answers; default 200 `ok`. */
  answer: (request: Received) => Response | Promise<Response>;
  /** Resolves once `n` requests arrived (or rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a test app on 127.0.0.1, port 0. */
export function startApp(answer?: App["answer"]): App {
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const app: App = {
    url: "",
    received: [],
    answer: answer ?? (() => new Response("ok")),
    waitFor(n, timeoutMs = 20_000) {
      if (app.received.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`Only ${app.received.length} of ${n} requests within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close: () => server.shutdown(),
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const received: Received = {
      method: request.method,
      id: request.headers.get("webhook-id") ?? "",
      timestamp: request.headers.get("webhook-timestamp") ?? "",
      signature: request.headers.get("webhook-signature") ?? "",
      contentType: request.headers.get("content-type") ?? "",
      body: await request.text(),
      at: performance.now(),
    };
    app.received.push(received);
    for (const w of waiters.splice(0)) {
      if (app.received.length >= w.n) w.resolve();
      else waiters.push(w);
    }
    return await app.answer(received);
  });
  app.url = `http://127.0.0.1:${server.addr.port}/hooks`;
  return app;
}

/** Saves a community and hooks `h1`, `h2` (tenant `t1`). */
export async function seedHooks(kv: Deno.Kv, ids = ["h1", "h2"]): Promise<void> {
  const hooks = createWebhooks(kv);
  await hooks.communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://acme.example" });
  for (const [i, id] of ids.entries()) {
    await hooks.save({
      id,
      tenantId: "t1",
      entity: { id: String(i), resources: { self: { ref: `https://acme.example/api/core/v3/webhooks/${i}` } } },
    });
  }
}

/** A postback item as a receiver hands it to `write`. */
export function postback(hookId: string, index = 0, postbackId = "p".repeat(64), receivedAt = Date.now()): Postback {
  const p = {
    activity: { verb: "jive:created", title: `item ${index}` },
    webhook: { id: hookId, tenantId: "t1", entity: {} },
    community: { name: "Acme", tenantId: "t1" },
    receivedAt,
  } as unknown as Postback;
  Object.defineProperties(p, {
    postbackId: { value: postbackId },
    index: { value: index },
    count: { value: index + 1 },
  });
  return p;
}

/** Commits `postbacks` through `write`, `perCommit` to a commit (as the receiver's group commit would). */
export async function writeAll(
  kv: Deno.Kv,
  write: (postback: Postback, atomic: Deno.AtomicOperation) => void,
  postbacks: Postback[],
  perCommit = 1,
): Promise<void> {
  for (let i = 0; i < postbacks.length; i += perCommit) {
    const atomic = kv.atomic();
    for (const p of postbacks.slice(i, i + perCommit)) write(p, atomic);
    const result = await atomic.commit();
    if (!result.ok) throw new Error("The test commit failed");
  }
}

/**
 * How much longer a wait may take when the suites run a second time over KV Connect (`deno task test:kvconnect`
 * sets `KV_CONNECT=1`): each read and commit is an HTTP round trip there, the server runs on the same two cores, and
 * the suites run side by side, so a wait sized for a local KV (20 s for 900 attempts recorded one by one) ran out on
 * a loaded CI machine though nothing was wrong.
 */
const REMOTE_WAIT_SCALE = Deno.env.get("KV_CONNECT") === "1" ? 3 : 1;

/** Polls `condition` every 10 ms until true (or throws after `timeoutMs`, three times that over KV Connect). */
export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = "condition",
): Promise<void> {
  const end = performance.now() + timeoutMs * REMOTE_WAIT_SCALE;
  while (!(await condition())) {
    if (performance.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Drives a test clock through the outbox: whenever no entry is held by a
 * worker, moves `clock.t` to the earliest due entry (never back), until the
 * outbox is empty or `timeoutMs` passed. Reads the relay's due keys
 * (`["relay_due", partition, dueAt, id]`), as a schedule test must.
 */
export async function driveClock(kv: Deno.Kv, clock: { t: number }, timeoutMs = 20_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (performance.now() < end) {
    const due: Deno.KvEntry<{ lease?: unknown }>[] = [];
    for await (const entry of kv.list<{ lease?: unknown }>({ prefix: ["relay_due"] })) due.push(entry);
    if (due.length === 0) return;
    if (due.every((e) => e.value.lease === undefined)) {
      const next = Math.min(...due.map((e) => e.key[2] as number));
      if (next > clock.t) clock.t = next;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error("The outbox did not empty in time");
}
