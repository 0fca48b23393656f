// A sandbox attack (`_requests.ts`) made into the bytes sent: its live values
// filled in (`⟦name⟧`), its body encoded, and every text it carries kept, so
// that a test tells an answer echoing what it was sent from one leaking a
// secret it was not.

import type { Attack, Body } from "./_requests.ts";
import { HUGE, type LiveName } from "./_values.ts";

/** The live values, by name, as they are now. */
export type Live = Record<LiveName, string> & { "#stamp": number };

/**
 * Deno's HTTP server closes the connection, without an answer, on a request
 * whose head is over 64 KiB: a huge value is 100 KB in a body, 20 KB in the
 * request line or a header (and the test tells that refusal from others).
 */
export const HEAD_LIMIT = 64 * 1024;
const HUGE_IN_HEAD = HUGE.slice(0, 20_000);
const fill = (text: string, live: Live, huge = HUGE): string =>
  text.replace(/⟦(#?\w+)⟧/g, (_, name: keyof Live | "huge") => name === "huge" ? huge : String(live[name]));
const fillJson = (value: unknown, live: Live): unknown => {
  if (value === "⟦#stamp⟧") return live["#stamp"];
  if (typeof value === "string") return fill(value, live);
  if (Array.isArray(value)) return value.map((v) => fillJson(v, live));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillJson(v, live)]));
  }
  return value;
};
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
/** A query string kept as typed: `%` stays (malformed escapes too), what a request line cannot hold is escaped. */
const rawQuery = (text: string): string =>
  Array.from(
    utf8(text),
    (b) => b > 0x20 && b < 0x7f && b !== 0x23 ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, "0")}`,
  ).join("");

/** A request ready for `rawRequest`, with every text it carries and the size of its head. */
export interface Built {
  method: string;
  target: string;
  headers: [string, string][];
  body?: Uint8Array;
  carried: string;
  headBytes: number;
}

/** The request as bytes on the wire, and every text it carries (to tell an echo from a leak). */
export function build(a: Attack, live: Live): Built {
  const carried: string[] = [];
  const path = a.path.replace(/\{(.*)\}/s, (_, segment: string) => {
    const filled = fill(segment, live, HUGE_IN_HEAD);
    carried.push(filled);
    return encodeURIComponent(filled.toWellFormed());
  });
  let target = `/sandbox${path}`;
  if (typeof a.query === "string") {
    carried.push(fill(a.query, live, HUGE_IN_HEAD));
    target += `?${rawQuery(fill(a.query, live, HUGE_IN_HEAD))}`;
  } else if (a.query.length > 0) {
    const pairs = a.query.map(([k, v]) => [k, fill(v, live, HUGE_IN_HEAD)]);
    carried.push(...pairs.flat());
    target += `?${new URLSearchParams(pairs)}`;
  }
  const headers: [string, string][] = [];
  if (a.host !== undefined) headers.push(["Host", a.host]);
  if (a.origin !== undefined) headers.push(["Origin", fill(a.origin, live, HUGE_IN_HEAD)]);
  if (a.contentType !== undefined) headers.push(["Content-Type", fill(a.contentType, live, HUGE_IN_HEAD)]);
  if (a.authorization && "basic" in a.authorization) {
    const [id, secret] = a.authorization.basic.map((v) => fill(v, live, HUGE_IN_HEAD));
    carried.push(id, secret);
    headers.push(["Authorization", `Basic ${btoa(String.fromCharCode(...utf8(`${id}:${secret}`)))}`]);
  } else if (a.authorization) {
    headers.push(["Authorization", fill(a.authorization.raw, live, HUGE_IN_HEAD)]);
  }
  carried.push(...headers.map(([, v]) => v));
  const headBytes = utf8(target).length + headers.reduce((n, [k, v]) => n + k.length + utf8(v).length + 4, 0);
  const body = a.body && bodyBytes(a.body, live, carried);
  return { method: a.method, target, headers, body, carried: carried.join("\n"), headBytes };
}

function bodyBytes(body: Body, live: Live, carried: string[]): Uint8Array {
  if ("bytes" in body) return body.bytes;
  if ("text" in body) return utf8(fill(body.text, live));
  if ("json" in body) {
    const text = JSON.stringify(fillJson(body.json, live)) ?? "";
    carried.push(text, JSON.parse(text || "null") === null ? "" : JSON.stringify(JSON.parse(text)));
    return utf8(text);
  }
  const pairs = ("form" in body ? body.form : body.multipart).map(([k, v]) => [k, fill(v, live)]);
  carried.push(...pairs.flat());
  if ("form" in body) return utf8(new URLSearchParams(pairs).toString());
  return utf8(
    pairs.map(([k, v]) => `--zz\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join("") +
      "--zz--\r\n",
  );
}
