// Private parts of the JiveEXTN header: strict parsing (no secret needed, so
// a receiver can read `tenant_id` before it knows whose secret to use), the
// client secret's key bytes, and the signature check on a parsed header.

import { timingSafeEqual } from "node:crypto";
import { describe } from "../_util.ts";
import { hmacSha256 } from "./_hmac.ts";

/** The header's authentication scheme. */
export const SCHEME = "JiveEXTN";
/** The only algorithm the platform uses, as named in the header. */
export const ALGORITHM = "HmacSHA256";
/** Default oldest accepted timestamp: 5 minutes before now. */
export const DEFAULT_MAX_AGE_MS = 5 * 60 * 1000;
/** Default farthest accepted timestamp: 30 seconds after now. */
export const DEFAULT_MAX_FUTURE_MS = 30 * 1000;
/** Bytes of an HMAC-SHA256 signature. */
const SIGNATURE_BYTES = 32;

const REQUIRED = ["algorithm", "client_id", "jive_url", "tenant_id", "timestamp", "signature"] as const;
/** Canonical base64: whole quads of the standard alphabet, `=` padding only at the end. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A header that parsed: its fields, decoded, and the text its signature covers. */
export interface ParsedJiveExtn {
  ok: true;
  clientId: string;
  tenantId: string;
  jiveUrl: string;
  timestamp: number;
  /** The decoded signature bytes. */
  signature: Uint8Array;
  /** The parameter string before `&signature=`, as sent. */
  signed: string;
}

/** Why a header was refused; never holds a value of the header. */
export interface Refused {
  ok: false;
  reason: string;
}

function refuse(reason: string): Refused {
  return { ok: false, reason };
}

/** Names a header parameter in a reason; unknown names are not echoed. */
function nameOf(name: string): string {
  return (REQUIRED as readonly string[]).includes(name) ? `'${name}'` : "(unknown name)";
}

/**
 * Decodes canonical base64 only: no whitespace, no URL-safe alphabet,
 * padding required and unused bits zero, so one signature has one spelling.
 */
export function strictBase64(text: string): Uint8Array | null {
  if (!BASE64.test(text)) return null;
  try {
    // "strict": padding required and stray bits in the last quad refused.
    return Uint8Array.fromBase64(text, { lastChunkHandling: "strict" });
  } catch {
    return null;
  }
}

/** `text` without HTTP's optional whitespace (RFC 9110 `OWS`: spaces and tabs) at either end. */
function trimOws(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === " " || text[start] === "\t")) start++;
  while (end > start && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
  return text.slice(start, end);
}

/**
 * Parses `JiveEXTN algorithm=...&client_id=...&jive_url=...&tenant_id=...&timestamp=...&signature=...`.
 * Every parameter must appear once, `signature` last; values are URL-decoded.
 *
 * Whitespace follows HTTP's rule (RFC 9110), so a header has the spellings
 * HTTP gives it and no others: spaces and tabs at either end are not part of
 * the value (a `Headers` object drops them anyway), and the scheme is
 * followed by one or more spaces. Any other whitespace (a tab after the
 * scheme, a newline, a no-break or other Unicode space at either end) stays
 * in the value and makes it fail: before the scheme it is not `JiveEXTN`,
 * after the signature the signature is not canonical base64.
 */
export function parseJiveExtn(header: unknown): ParsedJiveExtn | Refused {
  if (typeof header !== "string") return refuse("Missing Authorization header");
  const trimmed = trimOws(header);
  if (trimmed === "") return refuse("Missing Authorization header");
  if (header.length > 8192) return refuse("Authorization header is too long");
  const space = trimmed.indexOf(" ");
  const scheme = space === -1 ? trimmed : trimmed.slice(0, space);
  if (scheme.toLowerCase() !== SCHEME.toLowerCase()) return refuse("Authorization scheme must be JiveEXTN");
  let from = space + 1;
  while (space !== -1 && trimmed.charCodeAt(from) === 0x20) from++;
  const paramString = space === -1 ? "" : trimmed.slice(from);
  if (/^\s/.test(paramString)) return refuse("JiveEXTN header has whitespace other than spaces after its scheme");
  const marker = paramString.lastIndexOf("&signature=");
  if (marker === -1 || paramString.indexOf("&", marker + 1) !== -1) {
    return refuse("JiveEXTN header has no signature as its last parameter");
  }
  const values = new Map<string, string>();
  for (const pair of paramString.split("&")) {
    const eq = pair.indexOf("=");
    if (eq <= 0) return refuse("JiveEXTN header has a malformed parameter");
    const name = pair.slice(0, eq);
    let value = pair.slice(eq + 1);
    // Only a '%' escape changes (or breaks) a value: the rest decode to themselves.
    if (value.includes("%")) {
      try {
        value = decodeURIComponent(value);
      } catch {
        return refuse(`JiveEXTN parameter ${nameOf(name)} is not URL-encoded`);
      }
    }
    if (values.has(name)) return refuse(`JiveEXTN parameter ${nameOf(name)} is repeated`);
    values.set(name, value);
  }
  for (const name of REQUIRED) {
    if (!values.get(name)) return refuse(`JiveEXTN header lacks the '${name}' parameter`);
  }
  if (values.get("algorithm") !== ALGORITHM) return refuse("JiveEXTN algorithm must be HmacSHA256");
  const timestampText = values.get("timestamp")!;
  if (!/^\d{1,16}$/.test(timestampText)) return refuse("JiveEXTN timestamp must be milliseconds since the epoch");
  const signature = strictBase64(values.get("signature")!);
  if (signature === null) return refuse("JiveEXTN signature is not base64");
  if (signature.byteLength !== SIGNATURE_BYTES) return refuse("JiveEXTN signature is not an HMAC-SHA256 signature");
  return {
    ok: true,
    clientId: values.get("client_id")!,
    tenantId: values.get("tenant_id")!,
    jiveUrl: values.get("jive_url")!,
    timestamp: Number(timestampText),
    signature,
    signed: paramString.slice(0, marker),
  };
}

/**
 * The HMAC key of a client secret: the secret base64-decoded, after a
 * trailing `.s` is dropped. The secret never goes into an error message.
 */
export function secretKeyBytes(clientSecret: unknown, what: string): Uint8Array {
  if (typeof clientSecret !== "string" || clientSecret.length === 0) {
    throw new TypeError(`Cannot ${what}: 'clientSecret' must be a non-empty base64 string`);
  }
  let secret = clientSecret.endsWith(".s") ? clientSecret.slice(0, -2) : clientSecret;
  secret = secret.replaceAll("-", "+").replaceAll("_", "/");
  try {
    const binary = atob(secret);
    if (binary.length === 0) throw new Error("empty");
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  } catch {
    throw new TypeError(`Cannot ${what}: 'clientSecret' is not valid base64`);
  }
}

/** Imports HMAC-SHA256 key bytes for Web Crypto. */
export function hmacKey(keyBytes: Uint8Array, usage: "sign" | "verify"): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "raw",
    keyBytes as Uint8Array<ArrayBuffer>,
    { name: "HMAC", hash: "SHA-256" },
    false,
    [usage],
  );
}

/** A value in an option's error message: a function by its kind, not its source. */
function shown(value: unknown): string {
  return typeof value === "function" ? "a function" : describe(value);
}

/**
 * Checks the options of a verification: both windows non-negative numbers
 * (a `TypeError` for another type, a `RangeError` for a negative or NaN).
 */
export function checkWindow(maxAgeMs: unknown, maxFutureMs: unknown, what: string): void {
  for (const [name, value] of [["maxAgeMs", maxAgeMs], ["maxFutureMs", maxFutureMs]] as const) {
    if (typeof value !== "number") {
      throw new TypeError(`Cannot ${what}: '${name}' must be a number of milliseconds, got ${shown(value)}`);
    }
    if (!(value >= 0)) {
      throw new RangeError(`Cannot ${what}: '${name}' must be a non-negative number, got ${String(value)}`);
    }
  }
}

/**
 * Checks verifyJiveExtn's `now`: a finite number of ms. Not a number (say
 * `Date.now` itself, as createReceiver's `now` is a function), or NaN, every
 * age comparison is false and a header of any age would verify.
 */
export function checkNow(now: unknown, what: string): number {
  if (typeof now !== "number") {
    throw new TypeError(`Cannot ${what}: 'now' must be a number of milliseconds, got ${shown(now)}`);
  }
  if (!Number.isFinite(now)) {
    throw new RangeError(`Cannot ${what}: 'now' must be a finite number of milliseconds, got ${now}`);
  }
  return now;
}

/** Checks a parsed header's timestamp against the window around `now`. */
export function checkTime(parsed: ParsedJiveExtn, now: number, maxAgeMs: number, maxFutureMs: number): Refused | null {
  if (now - parsed.timestamp > maxAgeMs) {
    return refuse(`JiveEXTN timestamp is too old: ${now - parsed.timestamp} ms ago`);
  }
  if (parsed.timestamp - now > maxFutureMs) {
    return refuse(`JiveEXTN timestamp is in the future: ${parsed.timestamp - now} ms ahead`);
  }
  return null;
}

/**
 * Checks a parsed header's signature: the HMAC is computed synchronously
 * (_hmac.ts: two one-shot hashes, a fraction of Web Crypto's cost per call)
 * and compared with the decoded signature bytes by `timingSafeEqual`, in
 * constant time.
 */
export function checkSignature(parsed: ParsedJiveExtn, keyBytes: Uint8Array): Refused | null {
  const expected = hmacSha256(keyBytes, parsed.signed);
  // Both are 32 bytes: parseJiveExtn refuses a signature of another length.
  return timingSafeEqual(expected, parsed.signature) ? null : refuse("JiveEXTN signature does not match");
}
