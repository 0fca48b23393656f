/**
 * The types of {@linkcode createReceiver}: its options, what it hands on,
 * and what it reports of each request.
 *
 * @module
 */

import type { Community, Webhook } from "../types.ts";

/**
 * One item of a postback, as handed to `onPostback`.
 *
 * @example Usage
 * ```ts
 * import type { Postback } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const postback: Postback = {
 *   activity: { verb: "jive:created" },
 *   webhook: { id: "h1", tenantId: "t1", entity: {} },
 *   community: { name: "Acme", tenantId: "t1" },
 *   receivedAt: 0,
 *   postbackId: "ab".repeat(32),
 *   index: 0,
 *   count: 1,
 * };
 * assert.equal(postback.index === postback.count - 1, true); // the last item
 * ```
 */
export interface Postback {
  /** The item's activity as sent. */
  activity: Record<string, unknown>;
  /** The local record of the item's `webhook` (a hook of the signing tenant). */
  webhook: Webhook;
  /** The community that signed the postback. */
  community: Community;
  /** When the request arrived (the receiver's `now()`, ms). */
  receivedAt: number;
  /**
   * (Not enumerable, like `index` and `count`: the object spreads and
   * compares as API.md's `{ activity, webhook, community, receivedAt }`.)
   * A stable id of the accepted request (64 hex characters, from its replay
   * key): the same for every item of one postback, and for the platform's
   * retry of it, so a consumer can store a postback once.
   */
  postbackId: string;
  /** The item's place in the postback, from 0. */
  index: number;
  /** How many items the postback holds. */
  count: number;
  /**
   * With `write` and `sequence`: the item's number in the sequence (not
   * enumerable). The items of all postbacks stored through one sequence key
   * are numbered 1, 2, 3, ... in commit order, across processes.
   */
  seq?: number;
}

/**
 * What the receiver reports of one request to `onAttempt`, once its answer is
 * decided. It never holds the signature: `headers` has the `Authorization`
 * value reduced to its scheme and non-secret parameters, and the values of
 * cookies and of headers whose name suggests a credential (`auth`, `token`,
 * `secret`, `key`, `session`, `passw`, `signature`, `credential`) removed.
 *
 * @example Usage
 * ```ts
 * import type { ReceiverAttempt } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const attempt: ReceiverAttempt = {
 *   status: 401, reason: "Missing Authorization header", durationMs: 1, receivedAt: 0, bodyExcerpt: "", headers: {},
 * };
 * assert.equal(attempt.tenantId, undefined);
 * ```
 */
export interface ReceiverAttempt {
  /** The answer's HTTP status. */
  status: number;
  /** Why, in a sentence (never a value of the header). */
  reason: string;
  /** The header's `tenant_id`, when it parsed (verified only when `status` is not 401). */
  tenantId?: string;
  /** The header's `client_id`, when it parsed. */
  clientId?: string;
  /** `receivedAt` minus the header's timestamp (negative when it lies ahead), when it parsed. */
  timestampAgeMs?: number;
  /** Items in the body, when it parsed as an array of items. */
  itemCount?: number;
  /** Milliseconds spent on the request. */
  durationMs: number;
  /** When the request arrived (the receiver's `now()`, ms). */
  receivedAt: number;
  /** The first bytes (at most 2048) of the body actually read, as text; empty when none was read. */
  bodyExcerpt: string;
  /** The request's headers, secrets removed. */
  headers: Record<string, string>;
  /** `true` when the header was already accepted: answered 200 and handed to no one. */
  duplicate?: boolean;
  /** The postback id, once the request got that far. */
  postbackId?: string;
}

/**
 * What `accept` sees: the request, the community that signed it, and the
 * record of each item, in order.
 *
 * @example Usage
 * ```ts
 * import type { ReceiverAcceptInput } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const input: ReceiverAcceptInput = {
 *   request: new Request("http://localhost/hooks/h1", { method: "POST" }),
 *   community: { name: "Acme", tenantId: "t1" },
 *   webhooks: [{ id: "h1", tenantId: "t1", entity: {} }],
 * };
 * assert.ok(input.webhooks.every((w) => input.request.url.endsWith(`/${w.id}`)));
 * ```
 */
export interface ReceiverAcceptInput {
  /** The request (its body already read). */
  request: Request;
  /** The community that signed it. */
  community: Community;
  /** The record of each item, in order. */
  webhooks: Webhook[];
}

/**
 * Options of {@linkcode createReceiver}.
 *
 * @example Usage
 * ```ts
 * import type { ReceiverOptions } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const options: ReceiverOptions = { onPostback: () => {}, maxItems: 10 };
 * assert.equal(options.maxBytes, undefined); // 1 MiB
 * ```
 */
export interface ReceiverOptions {
  /**
   * Called once per item, in order, each call awaited; the answer is 200
   * once all settled, 500 when one throws (and the platform's retry is then
   * delivered again). For side effects outside KV. Give this or `write`.
   */
  onPostback?(postback: Postback): void | Promise<void>;
  /**
   * Adds an item's writes to `atomic`, the atomic operation that also claims
   * the header: one commit stores the claim and the writes, so a postback is
   * stored exactly once or not at all. Called once per item, in order,
   * synchronously (it awaits nothing), when the postback's commit is built.
   * When a shared commit fails for another postback's reason, what it added
   * goes again in the next operation without a new call, and so it does when
   * the postback is decided afresh (a cached community or record changed
   * meanwhile) and the same records take it; only with `sequence`, whose
   * numbers may then move, is it called again (only the operation that
   * commits counts). If it throws, nothing of the postback is committed and
   * the answer is 500; so it is when it returns a promise (what it would add
   * after an await would miss the commit), and `createReceiver` refuses an
   * async function with a `TypeError`. Postbacks ready at the same time share one operation
   * (at most ten checks in all, 1,000 mutations, 800 KiB). Give this or
   * `onPostback`.
   */
  write?(postback: Postback, atomic: Deno.AtomicOperation): void;
  /**
   * With `write`: a KV key holding a counter that numbers every stored item
   * in commit order (`postback.seq`), bumped in the same commit; for a log
   * that readers follow without skipping anything, across processes. Its
   * check takes one of the ten a commit carries: a postback may then name at
   * most nine hooks (more is 413).
   */
  sequence?: Deno.KvKey;
  /** Largest body, in bytes; default 1 MiB (1048576). */
  maxBytes?: number;
  /** Most items in one postback; default 100. More are answered 413. */
  maxItems?: number;
  /** Oldest accepted header timestamp, in ms before `now()`; default 5 minutes. Finite: claims are kept that long. */
  maxAgeMs?: number;
  /** Farthest accepted header timestamp, in ms after `now()`; default 30 seconds. */
  maxFutureMs?: number;
  /** Time the body may take to arrive whole, in ms; default 10000. Later is answered 408. */
  bodyTimeoutMs?: number;
  /**
   * How long a claim being handed on (pending) keeps copies of its header
   * away, in ms; default 30000. It is renewed every third of it while
   * `onPostback` runs, so only a process that died lets it run out; then a
   * copy takes the claim over: the platform's retry is delivered.
   */
  claimLeaseMs?: number;
  /** The current time in ms; default `Date.now`. */
  now?: () => number;
  /**
   * Called once per request after its answer is decided and before it is
   * returned; awaited, and what it throws is ignored.
   */
  onAttempt?(attempt: ReceiverAttempt): void | Promise<void>;
  /**
   * A last check after the items' records are found and before anything is
   * claimed or handed on: `false` answers 404 (for example, an endpoint per
   * hook that takes only its own hook's items).
   */
  accept?(input: ReceiverAcceptInput): boolean | Promise<boolean>;
  /** The KV for replay claims; default the KV `hooks` was made over. */
  kv?: Deno.Kv;
}

/**
 * What {@linkcode createReceiver} returns.
 *
 * @example Usage
 * ```ts
 * import type { Receiver } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const receiver: Receiver = { handle: () => Promise.resolve(new Response(null, { status: 405 })) };
 * assert.equal((await receiver.handle(new Request("http://localhost/"))).status, 405);
 * ```
 */
export interface Receiver {
  /**
   * Answers one postback request; `Deno.serve(receiver.handle)` works.
   * `info` is what Deno.serve hands a handler beside the request: given, it
   * says the request is the one Deno.serve handed over, so a body that
   * declares its length within `maxBytes` is read in one native call rather
   * than as a stream (less work and garbage per postback). Leave it out for a
   * request built in-process.
   */
  handle(request: Request, info?: Deno.ServeHandlerInfo): Promise<Response>;
}
