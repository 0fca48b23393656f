/**
 * The postback receiver, `POST /hooks/{id}`: a mount of the package's
 * `createReceiver`, which checks the `Authorization: JiveEXTN ...` header
 * before it reads the body, limits the body, finds each item's record among
 * the signing tenant's hooks and hands a replayed header on to no one.
 *
 * `{id}` is the receiver id the console put in the callback URL when it
 * registered the hook, or a webhook record id; every item of a postback must
 * be that hook's (else 404). A receiver id without a mapping (a hook that
 * reconcile adopted after an interrupted registration) is taken when every
 * item's record has exactly this receiver as its callback, and its mapping
 * is saved then. The receiver runs in `write` mode: the items of a postback
 * are logged in the same commit that claims its header and numbers them in
 * the delivery sequence (whole and once, or not at all), shared with the
 * postbacks that arrive with it, and feed the live page.
 *
 * @module
 */

import type { Hono } from "hono";
import { AsyncLocalStorage } from "node:async_hooks";
import {
  type Community,
  createReceiver,
  type ReceiverAttempt,
  verifyJiveExtn,
  type Webhook,
} from "../../webhooks/mod.ts";
import { clientAddresses } from "./rate_limits.ts";
import { tooManyRequests } from "../lib/rate_limit.ts";
import { receiverByHookKey, receiverKey } from "../lib/kv_keys.ts";
import { retryLocked } from "../lib/kv_retry.ts";
import { DELIVERY_SEQ_KEY } from "../lib/kv_keys.ts";
import { Memo } from "../lib/memo.ts";
import type { ConsoleEnv, Deps } from "../lib/context.ts";

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

/** How long a community read for the rate limit is kept. */
const TENANT_CACHE_MS = 5_000;

/**
 * Communities as read for the rate limit, kept a few seconds per console:
 * they only pick the tenant whose budget a verified postback spends (the
 * receiver decides on current data), so a secret rotated meanwhile charges
 * that tenant a few seconds longer, and nothing else.
 */
function tenantFinder(deps: Deps): (tenantId: string) => Promise<Community | null> {
  const memo = new Memo({ ttlMs: TENANT_CACHE_MS, max: 1_000 }, (id) => deps.webhooks.communities.findByTenantID(id));
  return (tenantId) => memo.get(tenantId);
}

/**
 * The tenant of a postback whose header verifies with that tenant's client
 * secret, or `null` (the receiver then answers it, 401 or 404). Only
 * verified postbacks count against a tenant's rate limit, so nobody can
 * spend another tenant's budget with forged headers.
 */
async function verifiedTenant(
  find: (tenantId: string) => Promise<Community | null>,
  header: string | undefined,
): Promise<Community | null> {
  if (!header || header.length > 4096) return null;
  const match = /(?:^|[\s&])tenant_id=([^&\s]{1,200})/.exec(header);
  if (!match) return null;
  let tenantId: string;
  try {
    tenantId = decodeURIComponent(match[1]);
  } catch {
    return null;
  }
  const community = await find(tenantId);
  if (!community?.clientSecret) return null;
  const verified = await verifyJiveExtn(header, community.clientSecret).catch(() => null);
  return verified?.ok && verified.tenantId === tenantId ? community : null;
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

/** What the console knows of a request while the receiver handles it. */
interface InFlight {
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
  const logAttempt = async (attempt: ReceiverAttempt) => {
    const request = current.getStore();
    if (attempt.status === 200 && !attempt.duplicate) {
      // Kept for the detail page, off the answer's path; the log trimmed to its retention when due.
      deps.deliveries.recordAttempt(attempt, request?.firstSeq).catch(() => {});
      deps.deliveries.trimSoon();
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
    onAttempt: logAttempt,
    accept: ({ webhooks }) => takes(deps, current.getStore(), webhooks, (id, hookId) => mappings.note(id, hookId)),
    // Each item is logged in the commit that claims the header: all of the postback or none of it, once.
    sequence: DELIVERY_SEQ_KEY,
    write: (postback, atomic) => {
      const request = current.getStore();
      if (request) request.firstSeq = postback.seq! - postback.index;
      deps.deliveries.write(postback, atomic, request?.replay === true);
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

  // "Replay to receiver": a request the console signs itself, run through
  // the same handler as the platform's, its deliveries marked as replays.
  deps.replayToReceiver = (id, request) => {
    const mapping = mappingFor(id);
    return current.run(
      { id, address: "console", mapping, replay: true },
      () => receiver.handle(request),
    );
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
    const tenant = community?.tenantId ?? null;
    if (tenant !== null) {
      const verdict = await deps.limiter.hit("receiver", tenant);
      if (!verdict.ok) {
        raw.body?.cancel().catch(() => {});
        await current.run(request, () =>
          logAttempt({
            status: 429,
            reason: `Too many requests: tenant ${tenant} is over its limit; try again in ${verdict.retryAfter} s`,
            tenantId: tenant,
            durationMs: performance.now() - started,
            receivedAt: Date.now(),
            bodyExcerpt: "",
            headers: plainHeaders(raw.headers),
          })).catch(() => {});
        return tooManyRequests(verdict, true);
      }
    }
    // The receiver's answers carry `x-content-type-options: nosniff` themselves.
    return await current.run(request, () => receiver.handle(raw, info));
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
