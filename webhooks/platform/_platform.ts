// The module's HTTP client for the platform: bearer tokens, the
// anti-hijacking prefix, time-outs, and one renewal of the tokens on a 401 or
// 403 followed by one retry.

import { PlatformError } from "../errors.ts";
import type { Community, TokenPair } from "../types.ts";
import { blotSecrets } from "../_util.ts";
import { basicCredentials, redact, redactDeep } from "./_secrets.ts";
import { requestTick, shareRenewal } from "./_renewal_share.ts";
import { renewAcrossProcesses, type RenewalLease, storedUnder } from "./_renewal_lease.ts";
import { errorDetail, htmlAnswer, isErrorBody, readCapped } from "./_answer.ts";
import { platformOperation } from "../telemetry/mod.ts";

/** Fetch failures of a connection lost after the request went out. */
const LOST_MIDWAY = /connection closed|connection reset|broken pipe|incomplete message|unexpected eof|socket hang up/i;

/** Adds status 0, method, URL and `uncertain` to a failed fetch's own error. */
function networkError(error: unknown, method: string, url: string, uncertain: boolean): unknown {
  if (typeof error !== "object" || error === null || Object.isFrozen(error)) return error;
  for (const [key, value] of Object.entries({ status: 0, method, url, uncertain })) {
    if (!(key in error)) Object.defineProperty(error, key, { value, configurable: true, writable: true });
  }
  return error;
}

/**
 * A request's own error with the access token blotted out of its message:
 * fetch names a header value it cannot send (a token with a line break, say)
 * in full. Each line of the token is blotted too, as the message may hold
 * only the first.
 */
function blotToken(error: unknown, token: string): unknown {
  if (!(error instanceof Error) || Object.isFrozen(error)) return error;
  for (const field of ["message", "stack"] as const) {
    const text = error[field];
    if (typeof text !== "string") continue;
    const blotted = blotSecrets(text, [token], "[token]");
    if (blotted !== text) Object.defineProperty(error, field, { value: blotted, configurable: true, writable: true });
  }
  return error;
}

/** The messages of an error and its causes, the innermost last. */
function causeChain(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    parts.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(": ");
}

const HIJACK_PREFIX = /^\s*throw\s+'allowIllegalResourceCall is false\.';?\s*/;

/** The credentials used for one operation; updated in place on renewal. */
export interface Credentials {
  accessToken: string;
  refreshToken?: string;
}

/** What a platform call needs. */
export interface PlatformContext {
  fetch: typeof fetch;
  timeout: number;
  community: Community;
  credentials: Credentials;
  /** Stores renewed tokens; runs before the retried request. */
  onRenew: (tokens: TokenPair) => Promise<void>;
  /** Set when the call uses the community's stored tokens and stores renewed ones there: renewal is then shared with other processes. */
  lease?: RenewalLease;
}

/** A successful platform answer. */
export interface PlatformAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** The size of the answer's body as read, in bytes. */
  size: number;
}

/** Joins the community's address and an API path. */
export function platformUrl(community: Community, path: string): string {
  return (community.baseUrl ?? "").replace(/\/+$/, "") + path;
}

/** Parses a platform body: strips the anti-hijacking line, then JSON. */
export function parseBody(text: string): unknown {
  const json = text.replace(HIJACK_PREFIX, "").trim();
  return json === "" ? null : JSON.parse(json);
}

/**
 * Sends one request to the platform with the context's access token, renews
 * the tokens once on a 401 or 403 and retries once.
 */
export async function platformRequest(
  ctx: PlatformContext,
  method: string,
  url: string,
  body?: unknown,
): Promise<PlatformAnswer> {
  const sent = requestTick();
  const refused = ctx.credentials.accessToken;
  const first = await send(ctx, method, url, body);
  if ((first.status !== 401 && first.status !== 403) || !canRenew(ctx)) {
    return answerOrThrow(ctx, method, url, first);
  }
  await first.body?.cancel();
  // The request was answered (401 or 403) and is not sent again: whatever the renewal's fate, it was not carried out.
  const tokens = await sharedRenewal(ctx, sent, refused).catch((error) => {
    throw notCarriedOut(error);
  });
  ctx.credentials.accessToken = tokens.access_token;
  ctx.credentials.refreshToken = tokens.refresh_token;
  // A pair renewed under this call's lease was stored already, by this process or by the one that renewed.
  if (!storedUnder(tokens, ctx.lease)) await ctx.onRenew(tokens);
  return answerOrThrow(ctx, method, url, await send(ctx, method, url, body));
}

/** `error` marked as certain (`uncertain: false`): the request it fails was certainly not carried out. */
function notCarriedOut(error: unknown): unknown {
  if (typeof error === "object" && error !== null && !Object.isFrozen(error) && "uncertain" in error) {
    Object.defineProperty(error, "uncertain", { value: false, configurable: true, writable: true, enumerable: true });
  }
  return error;
}

/** Whether a refused call may renew: with a refresh token (a community without a client id renews as a public client). */
function canRenew(ctx: PlatformContext): boolean {
  return Boolean(ctx.credentials.refreshToken);
}

async function send(
  ctx: PlatformContext,
  method: string,
  url: string,
  body: unknown,
): Promise<Response> {
  // A plain object, so that any fetch (a test's stub too) can read it.
  const headers: Record<string, string> = {
    Accept: "application/json",
    Authorization: `Bearer ${ctx.credentials.accessToken}`,
  };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return await fetchWithTimeout(ctx, method, url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function fetchWithTimeout(
  ctx: PlatformContext,
  method: string,
  url: string,
  init: RequestInit,
): Promise<Response> {
  try {
    // A redirect is never followed: a 303 would turn the request into a GET whose answer passed for the platform's,
    // and a 307 would send the body (a refresh token, say) wherever the answer points.
    return await ctx.fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(ctx.timeout) });
  } catch (error) {
    if (error instanceof DOMException && error.name === "TimeoutError") {
      // A time-out may strike after the platform acted.
      throw new PlatformError(method, url, 0, `no answer within ${ctx.timeout} ms`, { uncertain: true });
    }
    // SPEC.md section 7: the request's own error is passed on, with what a
    // PlatformError carries added: status 0, method, URL, and whether the
    // platform may have acted all the same (a connection lost mid-way).
    throw networkError(blotToken(error, ctx.credentials.accessToken), method, url, LOST_MIDWAY.test(causeChain(error)));
  }
}

async function readText(
  ctx: PlatformContext,
  method: string,
  url: string,
  response: Response,
): Promise<{ text: string; size: number }> {
  try {
    return await readCapped(method, url, response);
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    const detail = timedOut ? `no answer within ${ctx.timeout} ms` : "the answer broke off";
    throw new PlatformError(method, url, 0, detail, { cause: error, uncertain: true });
  }
}

async function answerOrThrow(
  ctx: PlatformContext,
  method: string,
  url: string,
  response: Response,
  what = "",
): Promise<PlatformAnswer> {
  const { text, size } = await readText(ctx, method, url, response);
  let body: unknown = null;
  let parsed = true;
  try {
    body = parseBody(text);
  } catch {
    parsed = false;
  }
  const failed = !response.ok || (parsed && isErrorBody(body));
  if (failed) {
    // What the platform sent is cleaned of every secret where it is picked, before any cut.
    const detail = what +
      (response.status >= 300 && response.status < 400
        ? `a redirect (to ${
          redact(ctx, response.headers.get("location") ?? "no location").slice(0, 300)
        }), not followed`
        : errorDetail(body, parsed ? "" : text, response.statusText, (text) => redact(ctx, text)));
    // A 301, 302 or 303 to a POST, PUT or DELETE may come after the platform did the work ("see other"): uncertain.
    // A 307 or 308 asks for the request to be sent elsewhere, so it was not carried out here.
    // So may a 2xx whose body is an error: it contradicts itself. A 504 is a gateway's time-out: like ours, it may
    // strike after the platform acted.
    const uncertain = method !== "GET" && ([301, 302, 303, 504].includes(response.status) || response.ok);
    throw new PlatformError(method, url, response.status, detail, {
      body: parsed ? redactDeep(ctx, body) : undefined,
      cause: parsed ? undefined : htmlAnswer(response, text),
      uncertain,
    });
  }
  if (!parsed) {
    throw new PlatformError(method, url, response.status, `${what}the answer is not JSON`, { uncertain: true });
  }
  return { status: response.status, headers: Object.fromEntries(response.headers), body, size };
}

/**
 * The renewal of this call's refresh token, shared with the requests that met a 401 with it at the same time, each
 * storing the pair by its own rule; with a lease, with other processes too (stored before the lease is let go).
 */
function sharedRenewal(ctx: PlatformContext, sent: number, refused: string): Promise<TokenPair> {
  const { community, credentials, lease } = ctx;
  const id = [community.baseUrl, community.clientId, community.clientSecret, credentials.refreshToken];
  // One `webhooks.renew` span and count per renewal, under the operation that met the refusal first.
  const renew = () => platformOperation("renew", () => renewTokens(ctx), community.name);
  const busy = (waited: number) =>
    new PlatformError(
      "POST",
      platformUrl(community, "/oauth2/token"),
      0,
      `token renewal failed: other processes held the renewal lease for ${waited} ms`,
      { uncertain: false },
    );
  return shareRenewal(id, sent, lease ? () => renewAcrossProcesses(lease, refused, renew, ctx.onRenew, busy) : renew);
}

/**
 * Renews the tokens with the refresh grant at `{baseUrl}/oauth2/token`.
 * A failed renewal rejects with a {@linkcode PlatformError} carrying the
 * HTTP status.
 */
async function renewTokens(ctx: PlatformContext): Promise<TokenPair> {
  const url = platformUrl(ctx.community, "/oauth2/token");
  const clientId = ctx.community.clientId;
  const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: ctx.credentials.refreshToken ?? "" });
  const headers: Record<string, string> = {
    Accept: "application/json",
    "Content-Type": "application/x-www-form-urlencoded",
  };
  // API.md's confidential client: its id in the form and Basic credentials. A community saved without a
  // client id has none to send: it asks as a public client (RFC 6749 section 6), the refresh token alone.
  if (clientId) {
    form.set("client_id", clientId);
    headers.Authorization = `Basic ${basicCredentials(ctx.community)}`;
  }
  const response = await fetchWithTimeout(ctx, "POST", url, {
    method: "POST",
    headers,
    body: form.toString(),
  });
  const answer = await answerOrThrow(ctx, "POST", url, response, "token renewal failed: ");
  const body = answer.body as Partial<TokenPair> | null;
  if (typeof body?.access_token !== "string" || body.access_token === "") {
    throw new PlatformError("POST", url, answer.status, "token renewal answered without an access_token");
  }
  return {
    access_token: body.access_token,
    // A server that does not rotate refresh tokens keeps the old one valid.
    refresh_token: typeof body.refresh_token === "string" && body.refresh_token !== ""
      ? body.refresh_token
      : ctx.credentials.refreshToken ?? "",
  };
}
