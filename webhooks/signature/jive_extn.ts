/**
 * Signing and verifying the platform's `Authorization: JiveEXTN ...` header,
 * which the platform puts on every postback to a webhook callback URL.
 *
 * The header value is
 * `JiveEXTN algorithm=HmacSHA256&client_id=...&jive_url=...&tenant_id=...&timestamp=<ms>&signature=<url-encoded base64>`.
 * The signature is base64(HMAC-SHA256(key, the parameter string before
 * `&signature=`)), the key being the base64-decoded client secret (a trailing
 * `.s` on the secret is dropped first). HMAC comes from Web Crypto.
 *
 * @module
 */

import {
  ALGORITHM,
  checkNow,
  checkSignature,
  checkTime,
  checkWindow,
  DEFAULT_MAX_AGE_MS,
  DEFAULT_MAX_FUTURE_MS,
  hmacKey,
  parseJiveExtn,
  SCHEME,
  secretKeyBytes,
} from "./_jive_extn.ts";
import { requireNumber } from "../_util.ts";

/**
 * What goes into a JiveEXTN header besides the algorithm and signature.
 *
 * @example Usage
 * ```ts
 * import type { JiveExtnParams } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const params: JiveExtnParams = { clientId: "c1", jiveUrl: "https://c.example", tenantId: "t1" };
 * assert.equal(params.tenantId, "t1");
 * ```
 */
export interface JiveExtnParams {
  /** The community's OAuth client id (`client_id`). */
  clientId: string;
  /** The community's address (`jive_url`). */
  jiveUrl: string;
  /** The community's tenant id (`tenant_id`). */
  tenantId: string;
  /** Milliseconds since the epoch; defaults to `Date.now()`. */
  timestamp?: number;
}

/**
 * Options of {@linkcode verifyJiveExtn}.
 *
 * @example Usage
 * ```ts
 * import type { VerifyJiveExtnOptions } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const options: VerifyJiveExtnOptions = { now: 1_750_000_000_000, maxAgeMs: 60_000 };
 * assert.equal(options.maxFutureMs, undefined); // 30 seconds
 * ```
 */
export interface VerifyJiveExtnOptions {
  /** The current time in ms since the epoch; defaults to `Date.now()`. */
  now?: number;
  /** Oldest accepted timestamp, in ms before `now`; default 5 minutes. */
  maxAgeMs?: number;
  /**
   * How far in the future a timestamp may lie (clock skew between the
   * platform and the receiver), in ms; default 30 seconds.
   */
  maxFutureMs?: number;
}

/**
 * A header that verified: the parameters it carried.
 *
 * @example Usage
 * ```ts
 * import type { JiveExtnVerified } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const ok: JiveExtnVerified = { ok: true, clientId: "c1", tenantId: "t1", jiveUrl: "https://c.example", timestamp: 0 };
 * assert.equal(ok.ok, true);
 * ```
 */
export interface JiveExtnVerified {
  /** Always `true`. */
  ok: true;
  /** The `client_id` parameter. */
  clientId: string;
  /** The `tenant_id` parameter. */
  tenantId: string;
  /** The `jive_url` parameter. */
  jiveUrl: string;
  /** The `timestamp` parameter, ms since the epoch. */
  timestamp: number;
}

/**
 * A header that did not verify, and why. The reason never holds a value of
 * the header, nor the secret.
 *
 * @example Usage
 * ```ts
 * import type { JiveExtnRejected } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const no: JiveExtnRejected = { ok: false, reason: "Missing Authorization header" };
 * assert.equal(no.ok, false);
 * ```
 */
export interface JiveExtnRejected {
  /** Always `false`. */
  ok: false;
  /** What is wrong with the header, in sentence case. */
  reason: string;
}

/**
 * The result of {@linkcode verifyJiveExtn}.
 *
 * @example Usage
 * ```ts
 * import type { JiveExtnVerification } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * function tenantOf(result: JiveExtnVerification): string | null {
 *   return result.ok ? result.tenantId : null;
 * }
 * assert.equal(tenantOf({ ok: false, reason: "JiveEXTN signature does not match" }), null);
 * ```
 */
export type JiveExtnVerification = JiveExtnVerified | JiveExtnRejected;

const encoder = new TextEncoder();

function toBase64(bytes: ArrayBuffer): string {
  let binary = "";
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function checkParam(value: unknown, name: string): string {
  if (typeof value !== "string" || value.length === 0) {
    throw new TypeError(`Cannot sign: '${name}' must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Builds the `Authorization` header value the platform sends with a postback:
 * `JiveEXTN algorithm=HmacSHA256&client_id=...&jive_url=...&tenant_id=...&timestamp=<ms>&signature=...`.
 * Parameter values are URL-encoded; the signature covers the parameter
 * string exactly as it appears in the header, up to `&signature=`. For tests
 * and sandboxes that stand in for the platform.
 *
 * @param params The client id, community URL, tenant id and optional timestamp (ms).
 * @param clientSecret The community's client secret, base64, optionally ending in `.s`.
 * @returns The header value, scheme included.
 * @throws {TypeError} When a parameter is not a non-empty string, the
 *   timestamp is not a non-negative integer, or the secret is not base64.
 *
 * @example Sign and verify a header
 * ```ts
 * import { signJiveExtn, verifyJiveExtn } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const secret = btoa("a shared secret") + ".s";
 * const header = await signJiveExtn(
 *   { clientId: "c1", jiveUrl: "https://community.example", tenantId: "t1" },
 *   secret,
 * );
 * assert.ok(header.startsWith("JiveEXTN algorithm=HmacSHA256&client_id=c1&"));
 * const result = await verifyJiveExtn(header, secret);
 * assert.equal(result.ok, true);
 * ```
 */
export async function signJiveExtn(params: JiveExtnParams, clientSecret: string): Promise<string> {
  if (typeof params !== "object" || params === null) {
    throw new TypeError(`Cannot sign: 'params' must be an object, got ${String(params)}`);
  }
  const clientId = checkParam(params.clientId, "clientId");
  const jiveUrl = checkParam(params.jiveUrl, "jiveUrl");
  const tenantId = checkParam(params.tenantId, "tenantId");
  const timestamp = params.timestamp ?? Date.now();
  requireNumber(timestamp, "timestamp", "sign", "a non-negative integer of milliseconds");
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError(`Cannot sign: 'timestamp' must be a non-negative integer of milliseconds, got ${timestamp}`);
  }
  const key = await hmacKey(secretKeyBytes(clientSecret, "sign"), "sign");
  const paramString = `algorithm=${ALGORITHM}` +
    `&client_id=${encodeURIComponent(clientId)}` +
    `&jive_url=${encodeURIComponent(jiveUrl)}` +
    `&tenant_id=${encodeURIComponent(tenantId)}` +
    `&timestamp=${timestamp}`;
  const signature = toBase64(await crypto.subtle.sign("HMAC", key, encoder.encode(paramString)));
  return `${SCHEME} ${paramString}&signature=${encodeURIComponent(signature)}`;
}

/**
 * Checks a postback's `Authorization: JiveEXTN ...` header against the
 * community's client secret.
 *
 * Rejected: a missing or empty header, another scheme, an algorithm other
 * than `HmacSHA256`, a missing, empty, repeated or badly URL-encoded
 * parameter, a `signature` that is not the last parameter or not canonical
 * base64 (whitespace, the URL-safe alphabet or missing `=` padding are
 * refused), a timestamp older than `maxAgeMs` (5 minutes) or more than
 * `maxFutureMs` (30 seconds) ahead of `now`, and a signature that does not
 * match. The decoded signature is compared in constant time
 * (`node:crypto`'s `timingSafeEqual`). The `reason` of a rejection never echoes values
 * from the header, so it never holds the signature or a misplaced secret.
 *
 * The caller should also check that `clientId` and `tenantId` are the ones
 * of the community it expects ({@linkcode createReceiver} does).
 *
 * @param header The `Authorization` header value (`null` when absent).
 * @param clientSecret The community's client secret, base64, optionally ending in `.s`.
 * @param options `now`, `maxAgeMs` and `maxFutureMs`, in milliseconds.
 * @returns `{ ok: true, clientId, tenantId, jiveUrl, timestamp }`, or `{ ok: false, reason }`.
 * @throws {TypeError} When `clientSecret` is not a non-empty base64 string
 *   (a configuration error, not a bad request), when `options` is not an
 *   object, or when `now`, `maxAgeMs` or `maxFutureMs` is not a number
 *   (`now` is a number of ms here, not a function as in `createReceiver`).
 * @throws {RangeError} When `maxAgeMs` or `maxFutureMs` is negative or NaN,
 *   or `now` is not finite: a header of any age would verify.
 *
 * @example A fresh header verifies; a missing, an old and a respelled one do not
 * ```ts
 * import { signJiveExtn, verifyJiveExtn } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * const secret = btoa("a shared secret");
 * const params = { clientId: "c1", jiveUrl: "https://x.example", tenantId: "t1", timestamp: 1_000_000 };
 * const header = await signJiveExtn(params, secret);
 * assert.deepEqual(await verifyJiveExtn(header, secret, { now: 1_000_500 }), {
 *   ok: true, clientId: "c1", tenantId: "t1", jiveUrl: "https://x.example", timestamp: 1_000_000,
 * });
 * assert.equal((await verifyJiveExtn(null, secret)).ok, false);
 * const late = await verifyJiveExtn(header, secret, { now: 1_000_000 + 6 * 60_000 });
 * assert.equal(late.ok, false);
 * const unpadded = header.replace(/%3D$/, "");
 * assert.equal((await verifyJiveExtn(unpadded, secret, { now: 1_000_500 })).ok, false);
 * ```
 */
export function verifyJiveExtn(
  header: string | null | undefined,
  clientSecret: string,
  options: VerifyJiveExtnOptions = {},
): Promise<JiveExtnVerification> {
  // Synchronous inside (node:crypto's HMAC); a throw becomes a rejection.
  return new Promise((resolve) => resolve(verifyNow(header, clientSecret, options)));
}

function verifyNow(
  header: string | null | undefined,
  clientSecret: string,
  options: VerifyJiveExtnOptions,
): JiveExtnVerification {
  const keyBytes = secretKeyBytes(clientSecret, "verify");
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`Cannot verify: 'options' must be an object, got ${String(options)}`);
  }
  const now = checkNow(options.now ?? Date.now(), "verify");
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const maxFutureMs = options.maxFutureMs ?? DEFAULT_MAX_FUTURE_MS;
  checkWindow(maxAgeMs, maxFutureMs, "verify");
  const parsed = parseJiveExtn(header);
  if (!parsed.ok) return parsed;
  const refused = checkTime(parsed, now, maxAgeMs, maxFutureMs) ?? checkSignature(parsed, keyBytes);
  if (refused) return refused;
  const { clientId, tenantId, jiveUrl, timestamp } = parsed;
  return { ok: true, clientId, tenantId, jiveUrl, timestamp };
}
