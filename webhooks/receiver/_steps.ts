// The receiver's checks, one function each, in API.md's order: the method,
// the body's size and arrival, the JiveEXTN header and its window, the
// items' shape and count. Each answers its refusal (noted in the request's
// report) or hands on what the next step needs. What follows them (the
// community, the hooks, the claim and the consumer) is in receiver.ts.

import { discardBody, readRequestBody } from "./_body.ts";
import { maxClaimHooks } from "./claim/mod.ts";
import { checkTime, type ParsedJiveExtn, parseJiveExtn } from "../signature/mod.ts";
import { answer, type BodyItem, parseItems, urlsOf } from "./_receive.ts";
import type { Deadlines } from "./_deadlines.ts";
import type { Settings } from "./_settings.ts";

/** What one request gathered for its attempt report. */
export interface Trace {
  reason: string;
  tenantId?: string;
  clientId?: string;
  timestampAgeMs?: number;
  itemCount?: number;
  duplicate?: boolean;
  postbackId?: string;
  head: Uint8Array;
}

/** Headers of a 408 or 413: the body was left unread, so the client is told not to use the connection again. */
const CLOSE = { connection: "close" };

/**
 * A refusal: the rest of the body is dropped, and the reason noted. A `408`
 * or `413` says `Connection: close`, so that a client (or a proxy) does not
 * keep sending on a connection whose body the receiver dropped; its body is
 * left to `handle`, which drops it (a served request's after the answer went
 * out, so that Deno.serve closes the connection: see `closeAfterAnswer`).
 */
export function refuse(request: Request, trace: Trace, status: number, error: string, reason = error): Response {
  const closing = status === 408 || status === 413;
  if (!closing) discardBody(request);
  trace.reason = reason;
  return answer(status, { error }, closing ? CLOSE : undefined);
}

/** 1. `405` for a method other than POST. */
export function checkMethod(request: Request, trace: Trace): Response | null {
  if (request.method === "POST") return null;
  discardBody(request);
  trace.reason = "Method not allowed";
  return answer(405, { error: "Method not allowed: use POST" }, { allow: "POST" });
}

/**
 * 2. The body, read up to `maxBytes` before the header is judged: `413` at
 * once when `Content-Length` says it is larger, or once reading passes it;
 * `408` when it has not arrived within `bodyTimeoutMs`.
 */
export async function readBody(
  request: Request,
  s: Settings,
  deadlines: Deadlines,
  served: boolean,
  trace: Trace,
): Promise<Uint8Array | Response> {
  const tooLarge = `Payload too large: the limit is ${s.maxBytes} bytes`;
  const length = request.headers.get("content-length")?.trim();
  if (length && /^\d+$/.test(length) && Number(length) > s.maxBytes) return refuse(request, trace, 413, tooLarge);
  const read = await readRequestBody(request, s.maxBytes, deadlines, served);
  trace.head = read.head;
  switch (read.kind) {
    case "too-large":
      return refuse(request, trace, 413, tooLarge);
    case "timeout":
      return refuse(request, trace, 408, `Request timeout: the body did not arrive within ${s.bodyTimeoutMs} ms`);
    case "error":
      return refuse(request, trace, 400, "Bad request: the body could not be read");
  }
  return read.bytes;
}

/**
 * 3. The `Authorization: JiveEXTN` header: `401` when it is missing or
 * malformed, or its timestamp is outside the window. The window comes before
 * the community: it needs none, so its answer tells nothing of which tenants
 * exist.
 */
export function checkHeader(
  request: Request,
  s: Settings,
  receivedAt: number,
  trace: Trace,
): ParsedJiveExtn | Response {
  const parsed = parseJiveExtn(request.headers.get("authorization"));
  if (!parsed.ok) return refuse(request, trace, 401, `Unauthorized: ${parsed.reason}`, parsed.reason);
  trace.tenantId = parsed.tenantId;
  trace.clientId = parsed.clientId;
  trace.timestampAgeMs = receivedAt - parsed.timestamp;
  const late = checkTime(parsed, receivedAt, s.maxAgeMs, s.maxFutureMs);
  if (late) return refuse(request, trace, 401, `Unauthorized: ${late.reason}`, late.reason);
  return parsed;
}

/**
 * 4. The items: `400` when the body is compressed (a `Content-Encoding`
 * other than `identity`, or a `Transfer-Encoding` other than `chunked`),
 * not UTF-8, not a JSON array of `{ webhook: string, activity: object }`,
 * or nested deeper than 1,000 levels; `413` when it holds more than `maxItems`, or
 * names more hooks than one claim's commit can check (ten, nine with
 * `sequence`: its counter is checked too).
 */
export function checkItems(request: Request, bytes: Uint8Array, s: Settings, trace: Trace): BodyItem[] | Response {
  // Compressed bytes are not JSON; say why rather than "not UTF-8". Not decoded: `maxBytes` bounds what is read.
  const encoding = request.headers.get("content-encoding");
  if (encoding !== null && encoding.split(",").some((coding) => !/^\s*(identity)?\s*$/i.test(coding))) {
    const error = "Bad request: a compressed body (Content-Encoding) is not accepted; send it uncompressed";
    return refuse(request, trace, 400, error);
  }
  // Deno.serve undoes `chunked` only: bytes of any other transfer coding (`gzip, chunked`) reach us still coded, and
  // taken as they are, a body labelled gzip would be stored as something its sender did not send.
  const transfer = request.headers.get("transfer-encoding");
  if (transfer !== null && transfer.split(",").some((coding) => !/^\s*(chunked|identity)?\s*$/i.test(coding))) {
    const error = "Bad request: a body in a transfer coding other than chunked (Transfer-Encoding) is not accepted; " +
      "send it uncompressed";
    return refuse(request, trace, 400, error);
  }
  const checked = parseItems(bytes, s.maxItems);
  if ("error" in checked) return refuse(request, trace, checked.status, checked.error);
  trace.itemCount = checked.items.length;
  const maxHooks = maxClaimHooks(s.sequence !== undefined);
  if (urlsOf(checked.items).length > maxHooks) {
    return refuse(request, trace, 413, `Too many hooks: the items of a postback name at most ${maxHooks} webhooks`);
  }
  return checked.items;
}
