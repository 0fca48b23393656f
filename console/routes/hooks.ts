/**
 * The postback receiver, `POST /hooks/{id}`: a mount of the package's
 * `createReceiver`, which reads the body within its limits, then checks the
 * `Authorization: JiveEXTN ...` header (API.md's order), finds each item's
 * record among the signing tenant's hooks and hands a replayed header on to
 * no one.
 *
 * `{id}` is the receiver id the console put in the callback URL when it
 * registered the hook, or a webhook record id; every item of a postback must
 * be that hook's (else 404). A receiver id without a mapping (a hook that
 * reconcile adopted after an interrupted registration) is taken when every
 * item's record has exactly this receiver as its callback, and its mapping
 * is saved then. The receiver runs in `write` mode: the items of a postback
 * are logged in the same commit that claims its header, numbered by this
 * process (whole and once, or not at all), shared with the postbacks that
 * arrive with it, and feed the live page.
 *
 * @module
 */

import type { Hono } from "hono";
import { AsyncLocalStorage } from "node:async_hooks";
import { createReceiver, type ReceiverAttempt, type Webhook } from "../../webhooks/mod.ts";
import { clientAddresses } from "./rate_limits.ts";
import { tooManyRequests } from "../lib/rate_limit.ts";
import { receiverByHookKey, receiverKey } from "../lib/kv_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";
import { Memo } from "../lib/memo.ts";
import { readAnswer } from "../lib/answers.ts";
import type { AnsweredAttempt } from "../log/mod.ts";
import type { ConsoleEnv, Deps } from "../lib/context.ts";
import { countOnce, type LimitState, overLimitReason, tenantFinder, verifiedTenant } from "./_receiver_limit.ts";

/** Largest postback body accepted: 1 MiB. */
export const MAX_POSTBACK_BYTES = 1024 * 1024;

/** Saves the mapping of a receiver id to its record. */
async function saveReceiver(deps: Deps, id: string, hook: Webhook): Promise<void> {
  await retryLocked(() =>
    deps.kv.atomic()
      .set(receiverKey(id), { hookId: hook.id })
      .set(receiverByHookKey(hook.id, id), true)
      .commit()
  );
}

/**
 * Whether the receiver `id` takes a postback of these records (its signature
 * already checked): all of them must be its hook. An unmapped id is adopted
 * when every record's callback is exactly this receiver.
 */
async function takes(
  deps: Deps,
  request: InFlight | undefined,
  records: Webhook[],
  onAdopted: (id: string, hookId: string) => void,
): Promise<boolean> {
  const id = request?.id;
  if (!id || id.length > 200) return false;
  // The mapping was read when the request came in, beside the signature check.
  const mapped = await request.mapping;
  if (mapped !== null) return records.every((record) => record.id === mapped);
  if (records.length > 0 && records.every((record) => record.id === id)) return true; // a record id as receiver id
  if (await deps.webhooks.findByID(id)) return false; // another record's id: never adopted
  const callback = `${deps.publicUrl}/hooks/${id}`;
  const [first] = records;
  if (!first || !records.every((record) => record.id === first.id && record.entity?.callback === callback)) {
    return false;
  }
  await saveReceiver(deps, id, first);
  onAdopted(id, first.id);
  return true;
}

/** Headers that carry no secret, for the log of a request refused before the receiver saw it. */
function plainHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ["content-type", "content-length", "user-agent"]) {
    const value = headers.get(name);
    if (value !== null) out[name] = value.slice(0, 200);
  }
  return out;
}

/** What the console knows of a request while the receiver handles it, and where it stands with the tenant's limit. */
interface InFlight extends LimitState {
  /** The `{id}` of `/hooks/{id}`. */
  id: string;
  /** The client's address. */
  address: string;
  /** The record id the receiver id is mapped to, or `null` (read as the request comes in). */
  mapping: Promise<string | null>;
  /** A replay the console sends itself ("Replay to receiver"). */
  replay?: boolean;
  /** The number of the postback's first delivery, as last written (the commit that stores it writes it last). */
  firstSeq?: number;
  /** The receiver's report, logged once its answer is known (kept with it, as the delivery's response). */
  attempt?: ReceiverAttempt;
}

/**
 * Adds the receiver to `app`, and returns its handler: `(request, id, info)`
 * for `POST /hooks/{id}`, which the console also calls straight from its
 * `fetch` (the page middleware, sessions, CSRF, page headers, have nothing
 * to do with a platform's postback); `info`, Deno.serve's, lets the receiver
 * read a body of declared length natively.
 */
export function receiverRoutes(
  app: Hono<ConsoleEnv>,
  deps: Deps,
): (request: Request, id: string, info?: Deno.ServeHandlerInfo) => Promise<Response> {
  /** The request being handled (the receiver's hooks run inside handle()). */
  const current = new AsyncLocalStorage<InFlight>();
  const findTenant = tenantFinder(deps);
  /**
   * Refused after its header verified (with either secret: a 401 or a 500
   * may not have): it counts too. Nothing to wait for when it was counted
   * already (every postback the receiver accepted was, at `accept`).
   */
  const countRefused = (request: InFlight, attempt: ReceiverAttempt): Promise<unknown> | undefined => {
    if (request.counted || attempt.tenantId === undefined || attempt.status === 401 || attempt.status === 500) return;
    return countOnce(deps.limiter, request, attempt.tenantId).catch(() => true);
  };
  /** Logs a report: `request` is the one it came from, when known (passed, not read from `current`: no run needed). */
  const logAttempt = async (attempt: AnsweredAttempt, request?: InFlight) => {
    if (request?.limited && attempt.status !== 200) {
      attempt = { ...attempt, status: 429, reason: overLimitReason(request.limited) };
    }
    if (attempt.status === 200 && !attempt.duplicate) {
      // Kept for the detail page, off the answer's path; its rows counted (the log trimmed when due).
      deps.deliveries.recordAttempt(attempt, request?.firstSeq).catch(() => {});
      return;
    }
    // Every refusal is logged with its reason, a bounded number per client
    // address, so that a flood of forged requests cannot push real
    // deliveries out of the log.
    if (!(await deps.limiter.hit("rejections", request?.address ?? "unknown")).ok) return;
    // The record the receiver id stands for: its mapping, read as the request came in, or the id itself.
    const hookId = request && request.id.length <= 200 ? (await request.mapping.catch(() => null)) ?? request.id : "";
    const hook = hookId ? await deps.webhooks.findByID(hookId).catch(() => null) : null;
    await deps.deliveries.addRejected(attempt, hook?.id ?? "");
  };
  // The package's receiver over the console's own store: it keeps the
  // communities and records it read, checked by versionstamp as it claims.
  const receiver = createReceiver(deps.webhooks, {
    maxBytes: MAX_POSTBACK_BYTES,
    // Counted now, so an answer over the limit becomes 429; logged once the answer is known (answered()),
    // so the log holds what was answered too.
    onAttempt: (attempt) => {
      const request = current.getStore();
      if (!request) return logAttempt(attempt);
      const counting = countRefused(request, attempt);
      if (!counting) {
        request.attempt = attempt;
        return;
      }
      return counting.then(() => {
        request.attempt = attempt;
      });
    },
    accept: async ({ community, webhooks }) => {
      const request = current.getStore();
      // Verified here with whichever of its secrets: counted once, and over the limit nothing is claimed or stored.
      if (request && !(await countOnce(deps.limiter, request, community.tenantId))) return false;
      // A writer slot to number the log's rows in (at hand but once a lease ran out: renewed in the background).
      await deps.deliveries.ready();
      return await takes(deps, request, webhooks, (id, hookId) => mappings.note(id, hookId));
    },
    // Each item is logged in the commit that claims the header: all of the postback or none of it, once.
    write: (postback, atomic) => {
      const request = current.getStore();
      const seq = deps.deliveries.write(postback, atomic, request?.replay === true);
      if (request) request.firstSeq = seq - postback.index;
      // The hook's forward destinations get it from the same commit (docs/relay.md).
      deps.relay.write(postback, atomic);
    },
  });
  // Receiver ids mapped to their records, remembered for a minute: a mapping
  // only ever goes away with its hook, and a stale one finds no record (404).
  // An id without one (a record id, the common case) is remembered for a few
  // seconds: a receiver id adopted meanwhile by another console is taken by
  // its callback until then, as it was before its mapping was saved.
  const mappings = new Memo<string>(
    { ttlMs: 60_000, missTtlMs: 5_000, max: 10_000 },
    async (id) => (await deps.kv.get<{ hookId: string }>(receiverKey(id))).value?.hookId ?? null,
  );
  const mappingOf = (id: string) => mappings.get(id);

  /** The mapping of a receiver id, read as the request comes in; its failure is seen where it is awaited. */
  const mappingFor = (id: string): Promise<string | null> => {
    const mapping = id.length <= 200 ? mappingOf(id) : Promise.resolve(null);
    mapping.catch(() => {}); // not every path awaits it (a refusal logged over its limit, a long id)
    return mapping;
  };

  /** Logs the request's report with the answer it got, before the answer goes (as the report did before). */
  const answered = async (request: InFlight, response: Response): Promise<Response> => {
    const attempt = request.attempt;
    if (!attempt) return response;
    request.attempt = undefined;
    const { response: out, answer } = await readAnswer(response);
    // A failing log never changes the answer.
    await logAttempt({ ...attempt, response: answer }, request).catch(() => {});
    return out;
  };

  // "Replay to receiver": a request the console signs itself, run through
  // the same handler as the platform's, its deliveries marked as replays.
  deps.replayToReceiver = async (id, request) => {
    const mapping = mappingFor(id);
    const inFlight: InFlight = { id, address: "console", mapping, replay: true, counted: true }; // never limited
    return await answered(inFlight, await current.run(inFlight, () => receiver.handle(request)));
  };

  /** Answers `POST /hooks/{id}`: the tenant's rate limit, then the receiver. */
  const receive = async (raw: Request, id: string, info?: Deno.ServeHandlerInfo): Promise<Response> => {
    const started = performance.now();
    const mapping = mappingFor(id);
    const request: InFlight = { id, address: clientAddresses.get(raw) ?? "unknown", mapping };
    // Only a limited bucket needs the tenant before the receiver: otherwise the header is verified once, there.
    const community = deps.limiter.limits("receiver")
      ? await verifiedTenant(findTenant, raw.headers.get("authorization") ?? undefined)
      : null;
    if (community !== null && !(await countOnce(deps.limiter, request, community.tenantId))) {
      raw.body?.cancel().catch(() => {});
      const { response: out, answer } = await readAnswer(tooManyRequests(request.limited!, true));
      await logAttempt({
        status: 429,
        reason: overLimitReason(request.limited!),
        tenantId: community.tenantId,
        durationMs: performance.now() - started,
        receivedAt: Date.now(),
        bodyExcerpt: "",
        headers: plainHeaders(raw.headers),
        response: answer,
      }, request).catch(() => {});
      return out;
    }
    // The receiver's answers carry `x-content-type-options: nosniff` themselves.
    const response = await current.run(request, () => receiver.handle(raw, info));
    // Verified by the receiver (a secret the console did not try) and over the limit: nothing was stored.
    if (request.limited && response.status !== 200) {
      await response.body?.cancel();
      return await answered(request, tooManyRequests(request.limited, true));
    }
    return await answered(request, response);
  };
  app.post("/hooks/:id", (c) => receive(c.req.raw, c.req.param("id")));
  return receive;
}

/**
 * The `{id}` of a `/hooks/{id}` URL (one path segment, decoded), or `null`
 * for any other path (Hono then routes the request as usual).
 */
export function receiverIdOf(url: string): string | null {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1 || !url.startsWith("/hooks/", start)) return null;
  const end = url.slice(start + 7).search(/[?#]/);
  const raw = end === -1 ? url.slice(start + 7) : url.slice(start + 7, start + 7 + end);
  if (raw === "" || raw.includes("/")) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}
