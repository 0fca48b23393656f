// One attempt: the signed POST of an entry to its destination, its answer
// read up to 1 KiB, within the attempt's time.

import { isIP } from "node:net";
import { checkHost } from "../net/mod.ts";
import { joinChunks } from "../_util.ts";
import type { CachedDestination } from "./_cache.ts";
import type { OutboxEntry } from "./_entry.ts";
import { attemptTimer, parseRetryAfter } from "./timing/mod.ts";
import type { ResolvedOptions } from "./_options.ts";

/** What an attempt found. */
export interface Outcome {
  /** When it started (the relay's clock). */
  time: number;
  /** The answer's status; 0 when there was none. */
  status: number;
  durationMs: number;
  error?: string;
  /** The first 1 KiB of the answer. */
  response: string;
  /** `Retry-After` of a 429 or 503, in ms from now. */
  retryAfterMs?: number;
  /** Stopped by the worker's stop: not an attempt. */
  aborted?: boolean;
}

const RESPONSE_BYTES = 1_024;
/** What `webhook-signature` holds before the digest. */
const SIGNATURE_PREFIX = "v1,";
const SMALL_BODY = 64 * 1_024;
const HOST_CHECK_MS = 60_000;
/**
 * The text of the first bytes of an answer, cut at `RESPONSE_BYTES`: a
 * character the cut split is left out (a streaming decode holds it back),
 * not shown as U+FFFD, so the text is at most 1 KiB and holds only what was
 * sent. A body that ended within the limit is decoded as it is.
 */
function excerptText(bytes: Uint8Array, cut: boolean): string {
  return new TextDecoder().decode(bytes, { stream: cut });
}

/**
 * `text` without the request's signature: an answer that echoes the request
 * (a request inspector, an error page) is kept to be shown on pages and by
 * the CLI, where no signature may reach. Also as PHP's json_encode writes it
 * (slashes escaped) and percent-encoded (a query string, a form). A digest
 * the 1 KiB cut split is left: a part verifies nothing.
 */
function withoutSignature(text: string, signature: string): string {
  const digest = signature.startsWith(SIGNATURE_PREFIX) ? signature.slice(SIGNATURE_PREFIX.length) : signature;
  for (const form of [digest, digest.replaceAll("/", "\\/"), encodeURIComponent(digest)]) {
    text = text.replaceAll(form, "(the signature)");
  }
  return text;
}

/** What the guard decided for a host: why it may not be called, or the checked address to call it at. */
export interface HostVerdict {
  refused: string | null;
  /**
   * The address the name was checked at (the first, IPv4 first), for a host
   * name; `null` for an IP literal or a refusal.
   */
  address: string | null;
}

/** The private-address guard at delivery time, its verdicts kept a minute per host. */
export class HostGuard {
  #seen = new Map<string, HostVerdict & { until: number }>();

  /** Why `url` may not be called now, and the address it was checked at. */
  async check(url: URL): Promise<HostVerdict> {
    const now = performance.now();
    const seen = this.#seen.get(url.host);
    if (seen && seen.until > now) return seen;
    const checked = await checkHost(url);
    const refused = checked.refused ??
      (checked.unresolved ? `${url.hostname} has no DNS address (A or AAAA) that can be checked` : null);
    const literal = isIP(url.hostname.replace(/^\[|\]$/g, "")) !== 0;
    const address = refused !== null || literal ? null : checked.addresses[0] ?? null;
    if (this.#seen.size > 1_000) this.#seen.clear();
    const verdict = { until: now + HOST_CHECK_MS, refused, address };
    this.#seen.set(url.host, verdict);
    return verdict;
  }
}

let pinnedClient: Deno.HttpClient | null = null;

/**
 * Where a plain-HTTP request to a checked host name goes: to the address the
 * guard checked, with the name in `Host`, so that a second lookup by `fetch`
 * (a name rebound to a private address after the check) cannot send it
 * elsewhere. HTTPS keeps the name: its certificate is checked against the
 * name, which a host behind a rebound address cannot answer for. The target
 * never has a fragment (one is never sent, yet Deno's fetch span would
 * export it in `url.full`; only a record edited by hand holds one).
 */
function pinned(url: URL, address: string | null): { target: string; host?: string; client?: Deno.HttpClient } {
  const target = new URL(url.href);
  target.hash = "";
  if (address === null || url.protocol !== "http:") return { target: target.href };
  target.hostname = address.includes(":") ? `[${address}]` : address;
  pinnedClient ??= Deno.createHttpClient({ allowHost: true });
  return { target: target.href, host: url.host, client: pinnedClient };
}

/**
 * Reads at most 1 KiB of a body, then lets the rest go. A body that breaks
 * off or does not end in time gives what was read and why (the answer's
 * status came all the same).
 */
async function excerpt(response: Response): Promise<{ text: string; broken?: unknown }> {
  if (!response.body) return { text: "" };
  // A body whose declared length is small is read in one native call (a stream reader costs far more per answer).
  // Not a compressed one: fetch inflates it, and its length is the compressed size (a few hundred bytes of brotli
  // may inflate to gigabytes).
  const declared = Number(response.headers.get("content-length") ?? NaN);
  const plain = !response.headers.has("transfer-encoding") && !response.headers.has("content-encoding");
  if (declared <= SMALL_BODY && plain) {
    try {
      const bytes = await response.bytes();
      return { text: excerptText(bytes.subarray(0, RESPONSE_BYTES), bytes.byteLength > RESPONSE_BYTES) };
    } catch (error) {
      return { text: "", broken: error };
    }
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let broken: unknown;
  try {
    while (size < RESPONSE_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value.slice(0, RESPONSE_BYTES - size));
      size += Math.min(value.byteLength, RESPONSE_BYTES - size);
    }
  } catch (error) {
    broken = error;
  } finally {
    reader.cancel().catch(() => {});
  }
  const text = excerptText(joinChunks(chunks, size), size === RESPONSE_BYTES);
  return broken === undefined ? { text } : { text, broken };
}

/** The message of a failed fetch or body read, without the URL. */
function causeOf(error: unknown): string {
  const inner = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : "";
  return inner.replace(/[^:]*\(https?:\/\/[^)]*\):\s*/g, "").replace(/https?:\/\/\S+/g, "").slice(0, 200);
}

/** The reason of a failed fetch, without the URL. */
function reasonOf(error: unknown, host: string): string {
  const cause = causeOf(error);
  return `Cannot reach ${host}${cause ? ` (${cause})` : ""}`;
}

const ABORTED = Symbol("aborted");

/** `promise`'s value, or {@linkcode ABORTED} as soon as `signal` aborts (the promise is left to settle alone). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** POSTs `entry` (its `body` encoded) to `destination`, signed, and reports what happened. */
export async function deliver(
  entry: OutboxEntry,
  body: string,
  destination: CachedDestination,
  options: ResolvedOptions,
  guard: HostGuard,
  stop: AbortSignal,
): Promise<Outcome> {
  const time = options.now();
  const started = performance.now();
  const took = (): number => Math.round((performance.now() - started) * 10) / 10;
  const url = URL.parse(destination.url);
  const signature = destination.signer?.sign(entry.id, new Date(time), body);
  if (url === null || signature === undefined) {
    // Only a KV edited by hand holds one (`add` and `update` check both): a failed attempt, retried on the schedule
    // and then a dead letter like any other, rather than a throw that leaves the entry under its lease for good.
    const field = url === null ? "url" : "secret";
    const error =
      `Cannot send: the destination's stored ${field} is malformed (remove the destination and add it again)`;
    return { time, status: 0, durationMs: took(), error, response: "" };
  }
  // The attempt's time runs from here: a host name slow to resolve counts in it, so an attempt never outlasts
  // what its lease allows for it (but an answer that came while the process was paused is read: timing/mod.ts).
  const timer = attemptTimer(options.attemptTimeoutMs);
  try {
    return await attempt({ entry, body, url, signature, time, took, timeout: timer.signal }, options, guard, stop);
  } finally {
    timer.clear();
  }
}

/** What {@linkcode attempt} sends, and its limit. */
interface Attempt {
  entry: OutboxEntry;
  body: string;
  url: URL;
  signature: string;
  time: number;
  took: () => number;
  timeout: AbortSignal;
}

/** The attempt of {@linkcode deliver} once its URL and signature are known, within `timeout`. */
async function attempt(
  { entry, body, url, signature, time, took, timeout }: Attempt,
  options: ResolvedOptions,
  guard: HostGuard,
  stop: AbortSignal,
): Promise<Outcome> {
  const signal = AbortSignal.any([timeout, stop]);
  let address: string | null = null;
  if (!options.allowPrivateNetwork) {
    const verdict = await untilAborted(guard.check(url), signal);
    if (verdict === ABORTED) {
      if (stop.aborted && !timeout.aborted) return { time, status: 0, durationMs: took(), response: "", aborted: true };
      const error = `Cannot reach ${url.host} (its address was not found within ${options.attemptTimeoutMs / 1000} s)`;
      return { time, status: 0, durationMs: took(), error, response: "" };
    }
    if (verdict.refused) {
      return { time, status: 0, durationMs: took(), error: `Refused: ${verdict.refused}`, response: "" };
    }
    address = verdict.address;
  }
  const { target, host, client } = pinned(url, address);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "webhook-id": entry.id,
    "webhook-timestamp": String(Math.floor(time / 1000)),
    "webhook-signature": signature,
    "user-agent": "community-webhooks-relay",
  };
  if (host !== undefined) headers.host = host;
  try {
    // `client` is Deno's own member of RequestInit (not in the DOM's type).
    const response = await options.fetch(
      target,
      { method: "POST", headers, body, redirect: "manual", signal, client } as RequestInit,
    );
    const { text: read, broken } = await excerpt(response);
    const text = withoutSignature(read, signature);
    const retryAfterMs = response.status === 429 || response.status === 503
      ? parseRetryAfter(response.headers.get("retry-after"), options.now())
      : undefined;
    const outcome: Outcome = { time, status: response.status, durationMs: took(), response: text, retryAfterMs };
    // The status decides (a 2xx delivers); the body that did not come whole is told, not taken for no answer.
    if (broken !== undefined) {
      outcome.error = timeout.aborted
        ? `The answer's body did not end within ${options.attemptTimeoutMs / 1000} s`
        : stop.aborted
        ? "The answer's body was left unread: the worker stopped"
        : `The answer's body broke off${causeOf(broken) ? ` (${causeOf(broken)})` : ""}`;
    }
    return outcome;
  } catch (error) {
    if (stop.aborted && !timeout.aborted) {
      return { time, status: 0, durationMs: took(), response: "", aborted: true };
    }
    const message = timeout.aborted
      ? `No answer within ${options.attemptTimeoutMs / 1000} s`
      : reasonOf(error, url.host);
    return { time, status: 0, durationMs: took(), error: message, response: "" };
  }
}
