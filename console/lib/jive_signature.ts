/**
 * Signing and verifying the platform's `Authorization: JiveEXTN ...` header,
 * which the platform puts on every postback to a webhook callback URL.
 *
 * The header value is
 * `JiveEXTN algorithm=HmacSHA256&client_id=...&jive_url=...&tenant_id=...&timestamp=<ms>&signature=<url-encoded base64>`.
 * The signature is base64(HMAC-SHA256(key, the parameter string before
 * `&signature=`)), the key being the base64-decoded client secret (a trailing
 * `.s` on the secret is dropped first). HMAC comes from Web Crypto
 * (`crypto.subtle`); verification uses `crypto.subtle.verify`, which compares
 * in constant time.
 *
 * @module
 */

/** The header's authentication scheme. */
export const JIVE_EXTN_SCHEME = "JiveEXTN";

/** The only algorithm the platform uses, as named in the header. */
export const JIVE_EXTN_ALGORITHM = "HmacSHA256";

/** Default for {@linkcode VerifyJiveExtnOptions.maxAgeMs}: 5 minutes. */
export const DEFAULT_MAX_AGE_MS = 5 * 60 * 1000;

/** Default for {@linkcode VerifyJiveExtnOptions.maxFutureMs}: 30 seconds. */
export const DEFAULT_MAX_FUTURE_MS = 30 * 1000;

/** What goes into a JiveEXTN header besides the algorithm and signature. */
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

/** Options of {@linkcode verifyJiveExtn}. */
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

/** A header that verified: the parameters it carried. */
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

/** A header that did not verify, and why (never contains the secret). */
export interface JiveExtnRejected {
  /** Always `false`. */
  ok: false;
  /** What is wrong with the header, in sentence case. */
  reason: string;
}

/** The result of {@linkcode verifyJiveExtn}. */
export type JiveExtnVerification = JiveExtnVerified | JiveExtnRejected;

const REQUIRED = [
  "algorithm",
  "client_id",
  "jive_url",
  "tenant_id",
  "timestamp",
  "signature",
] as const;

const encoder = new TextEncoder();

function secretKeyBytes(clientSecret: unknown, what: string): Uint8Array {
  if (typeof clientSecret !== "string" || clientSecret.length === 0) {
    throw new TypeError(
      `Cannot ${what}: 'clientSecret' must be a non-empty base64 string`,
    );
  }
  let secret = clientSecret.endsWith(".s") ? clientSecret.slice(0, -2) : clientSecret;
  secret = secret.replaceAll("-", "+").replaceAll("_", "/");
  try {
    const binary = atob(secret);
    if (binary.length === 0) throw new Error("empty");
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  } catch {
    // The secret itself never goes into the message.
    throw new TypeError(
      `Cannot ${what}: 'clientSecret' is not valid base64`,
    );
  }
}

function hmacKey(
  keyBytes: Uint8Array,
  usage: "sign" | "verify",
): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "raw",
    keyBytes as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    [usage],
  );
}

function toBase64(bytes: ArrayBuffer): string {
  let binary = "";
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function checkParam(value: unknown, name: string): string {
  if (typeof value !== "string" || value.length === 0) {
    throw new TypeError(
      `Cannot sign: '${name}' must be a non-empty string, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * Builds the full `Authorization` header value the platform sends with a
 * postback: `JiveEXTN algorithm=HmacSHA256&client_id=...&jive_url=...&tenant_id=...&timestamp=<ms>&signature=...`.
 * Parameter values are URL-encoded; the signature covers the parameter
 * string exactly as it appears in the header, up to `&signature=`.
 *
 * @param params The client id, community URL, tenant id and optional timestamp (ms).
 * @param clientSecret The community's client secret, base64, optionally ending in `.s`.
 * @returns The header value, scheme included.
 * @throws {TypeError} When a parameter is not a non-empty string, the
 *   timestamp is not a non-negative integer, or the secret is not base64.
 *
 * @example Sign and verify a header
 * ```ts
 * import assert from "node:assert/strict";
 * import { signJiveExtn, verifyJiveExtn } from "./jive_signature.ts";
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
export async function signJiveExtn(
  params: JiveExtnParams,
  clientSecret: string,
): Promise<string> {
  if (typeof params !== "object" || params === null) {
    throw new TypeError(
      `Cannot sign: 'params' must be an object, got ${String(params)}`,
    );
  }
  const clientId = checkParam(params.clientId, "clientId");
  const jiveUrl = checkParam(params.jiveUrl, "jiveUrl");
  const tenantId = checkParam(params.tenantId, "tenantId");
  const timestamp = params.timestamp ?? Date.now();
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError(
      `Cannot sign: 'timestamp' must be a non-negative integer of milliseconds, got ${timestamp}`,
    );
  }
  const key = await hmacKey(secretKeyBytes(clientSecret, "sign"), "sign");
  const paramString = `algorithm=${JIVE_EXTN_ALGORITHM}` +
    `&client_id=${encodeURIComponent(clientId)}` +
    `&jive_url=${encodeURIComponent(jiveUrl)}` +
    `&tenant_id=${encodeURIComponent(tenantId)}` +
    `&timestamp=${timestamp}`;
  const signature = toBase64(
    await crypto.subtle.sign("HMAC", key, encoder.encode(paramString)),
  );
  return `${JIVE_EXTN_SCHEME} ${paramString}&signature=${encodeURIComponent(signature)}`;
}

/** Names a header parameter in a reason; unknown names are not echoed. */
function nameOf(name: string): string {
  return (REQUIRED as readonly string[]).includes(name) ? `'${name}'` : "(unknown name)";
}

function reject(reason: string): JiveExtnRejected {
  return { ok: false, reason };
}

function fromBase64(text: string): Uint8Array | null {
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * Checks a postback's `Authorization: JiveEXTN ...` header against the
 * community's client secret.
 *
 * Rejected: a missing or empty header, another scheme, an algorithm other
 * than `HmacSHA256`, missing, repeated or badly encoded parameters, a
 * `signature` that is not the last parameter, a timestamp older than
 * `maxAgeMs` (5 minutes) or more than `maxFutureMs` (30 seconds) ahead of
 * `now`, and a signature that does not match. The signature is checked with
 * `crypto.subtle.verify`, a constant-time comparison. The `reason` of a
 * rejection never echoes values from the header, so it never contains the
 * secret or the signature even when a sender misplaced one.
 *
 * The caller should also check that `clientId` and `tenantId` are the ones
 * of the community it expects.
 *
 * @param header The `Authorization` header value (`null` when absent).
 * @param clientSecret The community's client secret, base64, optionally ending in `.s`.
 * @param opts `now`, `maxAgeMs` and `maxFutureMs`, in milliseconds.
 * @returns `{ ok: true, clientId, tenantId, jiveUrl, timestamp }`, or `{ ok: false, reason }`.
 * @throws {TypeError} When `clientSecret` is not a non-empty base64 string
 *   (a configuration error, not a bad request).
 * @throws {RangeError} When `maxAgeMs` or `maxFutureMs` is negative or not a number.
 *
 * @example A missing header and an old one are rejected
 * ```ts
 * import assert from "node:assert/strict";
 * import { signJiveExtn, verifyJiveExtn } from "./jive_signature.ts";
 *
 * const secret = btoa("a shared secret");
 * assert.equal((await verifyJiveExtn(null, secret)).ok, false);
 * const old = await signJiveExtn(
 *   { clientId: "c1", jiveUrl: "https://x.example", tenantId: "t1", timestamp: 0 },
 *   secret,
 * );
 * const result = await verifyJiveExtn(old, secret);
 * assert.equal(result.ok, false);
 * ```
 */
export async function verifyJiveExtn(
  header: string | null | undefined,
  clientSecret: string,
  opts: VerifyJiveExtnOptions = {},
): Promise<JiveExtnVerification> {
  const keyBytes = secretKeyBytes(clientSecret, "verify");
  const now = opts.now ?? Date.now();
  const maxAgeMs = opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const maxFutureMs = opts.maxFutureMs ?? DEFAULT_MAX_FUTURE_MS;
  for (
    const [name, value] of [["maxAgeMs", maxAgeMs], [
      "maxFutureMs",
      maxFutureMs,
    ]] as const
  ) {
    if (typeof value !== "number" || !(value >= 0)) {
      throw new RangeError(
        `Cannot verify: '${name}' must be a non-negative number, got ${value}`,
      );
    }
  }
  if (typeof header !== "string" || header.trim() === "") {
    return reject("Missing Authorization header");
  }
  const trimmed = header.trim();
  const space = trimmed.indexOf(" ");
  const scheme = space === -1 ? trimmed : trimmed.slice(0, space);
  if (scheme.toLowerCase() !== JIVE_EXTN_SCHEME.toLowerCase()) {
    return reject("Authorization scheme must be JiveEXTN");
  }
  const paramString = space === -1 ? "" : trimmed.slice(space + 1).trim();
  const marker = paramString.lastIndexOf("&signature=");
  if (marker === -1 || paramString.indexOf("&", marker + 1) !== -1) {
    return reject("JiveEXTN header has no signature as its last parameter");
  }
  const signed = paramString.slice(0, marker);
  const values = new Map<string, string>();
  for (const pair of paramString.split("&")) {
    const eq = pair.indexOf("=");
    if (eq <= 0) return reject("JiveEXTN header has a malformed parameter");
    const name = pair.slice(0, eq);
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(eq + 1));
    } catch {
      return reject(`JiveEXTN parameter ${nameOf(name)} is not URL-encoded`);
    }
    if (values.has(name)) {
      return reject(`JiveEXTN parameter ${nameOf(name)} is repeated`);
    }
    values.set(name, value);
  }
  for (const name of REQUIRED) {
    if (!values.get(name)) {
      return reject(`JiveEXTN header lacks the '${name}' parameter`);
    }
  }
  const algorithm = values.get("algorithm")!;
  if (algorithm !== JIVE_EXTN_ALGORITHM) {
    return reject("JiveEXTN algorithm must be HmacSHA256");
  }
  const timestampText = values.get("timestamp")!;
  if (!/^\d{1,16}$/.test(timestampText)) {
    return reject("JiveEXTN timestamp must be milliseconds since the epoch");
  }
  const timestamp = Number(timestampText);
  if (now - timestamp > maxAgeMs) {
    return reject(`JiveEXTN timestamp is too old: ${now - timestamp} ms ago`);
  }
  if (timestamp - now > maxFutureMs) {
    return reject(
      `JiveEXTN timestamp is in the future: ${timestamp - now} ms ahead`,
    );
  }
  const signature = fromBase64(values.get("signature")!);
  if (signature === null) {
    return reject("JiveEXTN signature is not base64");
  }
  const key = await hmacKey(keyBytes, "verify");
  const valid = await crypto.subtle.verify(
    "HMAC",
    key,
    signature as Uint8Array<ArrayBuffer>,
    encoder.encode(signed),
  );
  if (!valid) return reject("JiveEXTN signature does not match");
  return {
    ok: true,
    clientId: values.get("client_id")!,
    tenantId: values.get("tenant_id")!,
    jiveUrl: values.get("jive_url")!,
    timestamp,
  };
}
