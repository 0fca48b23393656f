/**
 * `createReceiver`: receives the platform's postbacks to a webhook callback
 * URL, checks them, and hands each item on once. `decide` reads as API.md's
 * order of checks; each check is a step of `_steps.ts`, and what follows the
 * checks (the hooks, the claim, the consumer) is `deliver` here.
 *
 * @module
 */

import { excerpt, maskHeaders } from "./_attempt.ts";
import { closeAfterAnswer, discardBody, EMPTY } from "./_body.ts";
import { Deadlines } from "./_deadlines.ts";
import { claim, claimOf, finish, keepHeld, release, replayKey } from "./claim/mod.ts";
import type { ParsedJiveExtn } from "../signature/mod.ts";
import { answer, type BodyItem, postbackAt, urlsOf } from "./_receive.ts";
import { AtomicTee } from "./_atomic_tee.ts";
import { createResolver, type Resolved, type Take } from "./_receiver_resolve.ts";
import { commitWrites, settle } from "./_receive_write.ts";
import { settingsOf } from "./_settings.ts";
import { checkHeader, checkItems, checkMethod, readBody, refuse, type Trace } from "./_steps.ts";
import { inReceive, receiveEnded, receiveStarted } from "../telemetry/mod.ts";
import type { Webhooks } from "../webhooks.ts";
import type { Receiver, ReceiverAttempt, ReceiverOptions } from "./receiver_types.ts";

export type * from "./receiver_types.ts";

/** Extra life of a replay claim beyond the signature window, for clock skew between processes. */
const CLAIM_MARGIN_MS = 60_000;

/**
 * Makes a receiver for the platform's postbacks. `handle(request)` answers,
 * checking in this order:
 * 1. `405` for a method other than POST;
 * 2. `413` when the body exceeds `maxBytes`: at once when `Content-Length`
 *    says so (nothing read), else once reading passes it (the stream is
 *    cancelled, at most one chunk past the limit is read); `408` when it has
 *    not fully arrived within `bodyTimeoutMs`. Both say `Connection: close`,
 *    and with `info` the connection is closed once they went out;
 * 3. `401` when the `Authorization: JiveEXTN` header is missing or
 *    malformed, when no community has its `tenant_id`, when it does not
 *    verify with that community's client secret within the window (5 minutes
 *    back, 30 seconds ahead), or when its `client_id` is not the community's
 *    `clientId`; for 6 min 30 s after `communities.save` replaced the secret
 *    (by this receiver's `now`), the previous secret and client id verify too;
 * 4. `400` when the body is compressed (a `Content-Encoding` other than
 *    `identity`, or a `Transfer-Encoding` other than `chunked`), not UTF-8,
 *    not a JSON array of `{ webhook: string, activity: object }`, or nested
 *    deeper than 1,000 levels (arrays and
 *    objects; the array, an item and its activity are three); `413` when it
 *    holds more than `maxItems` items, or names
 *    more hooks than one commit can check beside its other checks (ten,
 *    nine with `sequence`: KV Connect takes ten checks per commit);
 * 5. `404` when an item's `webhook` names no record of that tenant, or
 *    `accept` refuses: nothing is handed on;
 * 6. `200 { received: 0, duplicate: true }` for a header already accepted
 *    for one of the hooks its items name (a header is claimed per hook),
 *    handed to no one; `409 { error: "In progress" }` with `Retry-After`
 *    while a request still being handled holds it;
 * 7. With `onPostback`: `200 { received: n }` once it has settled for all
 *    `n` items, in order; `500 { error: "Internal error" }` when it throws,
 *    and the header's claim is released so the platform's retry is
 *    delivered. The claim's done mark is committed before the `200` (a mark
 *    that cannot be written is reported, not answered 500); the marks of
 *    postbacks answered at the same time share commits. With `write`: `200 {
 *    received: n }` once the one commit that claims the header and holds
 *    what `write` added for every item succeeded, shared with the postbacks
 *    ready at the same time; `500` when `write` throws, a check it added
 *    fails, or the commit fails, and nothing of the postback is stored.
 *
 * This is API.md's order.
 * Replays: the accepted header's decoded fields are hashed (SHA-256) into a
 * replay key and claimed in KV with an atomic check before `onPostback` is
 * called, so two copies arriving at once, in one process or in several on
 * one KV, are handed on once. The claims expire with the window.
 * Communities and records are kept in a small per-receiver cache; the claim's
 * commit checks that each still stands as it was read, and a postback is
 * decided afresh from KV when one changed, so a rotated secret, a removed hook
 * or a renewed token counts from the next postback on, in every process (a
 * replaced secret keeps verifying until its rotation's `validUntil`).
 *
 * @param hooks The store made by {@linkcode createWebhooks}: its communities, records and KV.
 * @param options `onPostback` or `write` (exactly one), limits, the clock and the reporting hooks.
 * @returns `{ handle }`; `handle` needs no `this`, so `Deno.serve(receiver.handle)` works.
 * @throws {TypeError} When not exactly one of `onPostback` and `write` is given, a hook is not
 *   a function, or `hooks` was not made by `createWebhooks` and no `kv` is given.
 * @throws {RangeError} When a limit is not a positive integer or a window is negative.
 *
 * @example Receive one signed postback, then its replay
 * ```ts
 * import { createReceiver, createWebhooks, signJiveExtn } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const kv = await Deno.openKv(":memory:");
 * const hooks = createWebhooks(kv);
 * const secret = btoa("the community's client secret");
 * await hooks.communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://c.example", clientId: "c1", clientSecret: secret });
 * const ref = "https://c.example/api/core/v3/webhooks/7";
 * await hooks.save({ id: "h1", tenantId: "t1", entity: { resources: { self: { ref } } } });
 *
 * const seen: string[] = [];
 * const receiver = createReceiver(hooks, {
 *   onPostback: ({ activity, webhook }) => {
 *     seen.push(`${webhook.id} ${activity.verb}`);
 *   },
 * });
 * const authorization = await signJiveExtn({ clientId: "c1", jiveUrl: "https://c.example", tenantId: "t1" }, secret);
 * const post = () =>
 *   receiver.handle(new Request("http://localhost/hooks", {
 *     method: "POST",
 *     headers: { authorization },
 *     body: JSON.stringify([{ webhook: ref, activity: { verb: "jive:created" } }]),
 *   }));
 * const first = await post();
 * assert.equal(first.status, 200);
 * assert.deepEqual(await first.json(), { received: 1 });
 * assert.deepEqual(await (await post()).json(), { received: 0, duplicate: true });
 * assert.deepEqual(seen, ["h1 jive:created"]);
 * kv.close();
 * ```
 */
export function createReceiver(hooks: Webhooks, options: ReceiverOptions): Receiver {
  const s = settingsOf(hooks, options);
  const { kv, onPostback, write, onAttempt, sequence } = s;
  const bodyDeadlines = new Deadlines(s.bodyTimeoutMs);
  const resolver = createResolver({ hooks, kv, owned: s.owned, accept: s.accept });

  /** API.md's order of checks, then the hand-on. */
  async function decide(request: Request, served: boolean, receivedAt: number, trace: Trace): Promise<Response> {
    const wrongMethod = checkMethod(request, trace); // 1. 405
    if (wrongMethod) return wrongMethod;
    const body = await readBody(request, s, bodyDeadlines, served, trace); // 2. 413, 408
    if (body instanceof Response) return body;
    const header = checkHeader(request, s, receivedAt, trace); // 3. 401: the header and its window
    if (header instanceof Response) return header;
    const signer = await resolver.community(header, true, receivedAt); // 3. 401: the community and its secret
    if ("error" in signer) return refuse(request, trace, 401, signer.error, signer.reason);
    const items = checkItems(request, body, s, trace); // 4. 400, 413
    if (items instanceof Response) return items;
    return await deliver(request, header, signer, items, receivedAt, trace); // 5. 404, 6. duplicate, 7. 200
  }

  /**
   * 5-7. Looks up each item's hook (`404` when one names none), claims the
   * header per hook (`200 duplicate`, `409` while held), and hands the items
   * on: into the claim's commit with `write`, or to `onPostback`. Cached data
   * first; when a commit finds it changed, everything is read afresh (the
   * third pass commits without checks, as a receiver without a cache would).
   */
  async function deliver(
    request: Request,
    header: ParsedJiveExtn,
    signer: Resolved,
    items: BodyItem[],
    receivedAt: number,
    trace: Trace,
  ): Promise<Response> {
    const { keys, postbackId } = claimOf(replayKey(header), urlsOf(items), header.timestamp);
    // Whole milliseconds, as KV takes them (a clock or a window may have fractions).
    const expireIn = Math.ceil(Math.max(0, header.timestamp + s.maxAgeMs - receivedAt)) + CLAIM_MARGIN_MS;
    const take: Take | null = write ? null : (checks) => claim(kv, keys, receivedAt, s.claimLeaseMs, expireIn, checks);
    let tape: { first: number; ids: string; tee: AtomicTee } | undefined;
    for (let pass = 0;; pass++) {
      if (pass > 0) {
        resolver.forget(header.tenantId, items);
        const fresh = await resolver.community(header, false, receivedAt);
        if ("error" in fresh) return refuse(request, trace, 401, fresh.error, fresh.reason);
        signer = fresh;
      }
      const outcome = await resolver.lookUpAndClaim(request, signer, header.tenantId, items, take, pass < 2);
      if (outcome.kind === "stale") continue;
      if (outcome.kind === "unknown") return refuse(request, trace, 404, outcome.error);
      trace.postbackId = postbackId;
      const { community, webhooks, held } = outcome;
      const postbackOf = (index: number, seq?: number) =>
        postbackAt({ items, webhooks, community, receivedAt, postbackId }, index, seq);
      if (write) {
        const written = await commitWrites({
          kv,
          keys,
          checks: outcome.checks,
          sequence,
          count: items.length,
          expireIn,
          now: receivedAt,
          build: (atomic, first) => {
            // Decided afresh for the same records, at the same numbers: the same writes, without a second call.
            const ids = webhooks.map((webhook) => webhook.id).join("\n");
            if (tape?.first === first && tape.ids === ids) return tape.tee.replay(atomic);
            const tee = new AtomicTee(atomic);
            for (let index = 0; index < items.length; index++) {
              const returned: unknown = write(
                postbackOf(index, sequence ? first + index : undefined),
                tee as unknown as Deno.AtomicOperation,
              );
              // A write that awaits: what it adds later misses this commit. Taken as thrown (500, nothing stored).
              if (typeof (returned as PromiseLike<unknown> | undefined)?.then === "function") {
                (returned as PromiseLike<unknown>).then(undefined, () => {});
                throw new TypeError("Cannot store postback: 'write' returned a promise; it must await nothing");
              }
            }
            tape = { first, ids, tee };
          },
        });
        if (written === "stale") continue;
        return settle(written, items.length, trace);
      }
      if (held === undefined || typeof held === "string") return settle(held ?? "held", items.length, trace);
      // Held while it runs, however long: a copy meanwhile is 409, and only a crash lets the lease run out.
      const lease = keepHeld(kv, held, s.claimLeaseMs, s.now);
      try {
        for (let index = 0; index < items.length; index++) await onPostback!(postbackOf(index));
      } catch {
        await lease.stop();
        await release(kv, held).catch(() => {});
        return settle("threw", items.length, trace);
      }
      await lease.stop();
      // Handed on already: a claim that cannot be marked done is reported, not answered 500.
      const marked = await finish(kv, held);
      return settle(marked ? "stored" : "unmarked", items.length, trace);
    }
  }

  async function handle(request: Request, info?: Deno.ServeHandlerInfo): Promise<Response> {
    const started = performance.now();
    const receivedAt = s.now();
    const trace: Trace = { reason: "", head: EMPTY };
    // A `webhooks.receive` span (under the server's) and API.md's metrics; `undefined` with telemetry off.
    const telemetry = receiveStarted(started);
    let response: Response;
    try {
      response = await inReceive(telemetry, decide, request, info !== undefined, receivedAt, trace);
    } catch {
      discardBody(request);
      trace.reason = "Internal error";
      response = answer(500, { error: "Internal error" });
    }
    // A 408 or 413 left its body unread: dropped now, or (served) once answered, which closes the connection.
    if (response.headers.get("connection") === "close") {
      if (info) closeAfterAnswer(request, info);
      else discardBody(request);
    }
    if (onAttempt) {
      const { head, ...fields } = trace;
      const attempt: ReceiverAttempt = {
        ...fields,
        status: response.status,
        durationMs: performance.now() - started,
        receivedAt,
        bodyExcerpt: excerpt(head),
        headers: maskHeaders(request.headers),
      };
      try {
        await onAttempt(attempt);
      } catch {
        // A failing report never changes the answer.
      }
    }
    receiveEnded(telemetry, response.status, started, trace);
    return response;
  }

  return { handle };
}
