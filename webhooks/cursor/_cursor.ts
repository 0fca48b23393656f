// The cursors of paged lists (the relay's dead letters, the store's records
// and communities). KV's cursor is the key it stopped at, past the list's
// prefix, in base64url with padding; KV itself refuses only one it cannot
// decode, so a made-up one ("zzzz") read as an empty last page, "AAAA" as the
// list's start, and another list's (tenant A's given for B's) as a place in
// this one. A page's cursor is KV's, a dot and a tag of the list it belongs to
// (what it lists, its filter and order); it is taken back only for that list,
// and only when KV's part is, byte for byte, what KV gives for a key whose
// parts past the prefix the list accepts. The tag catches mistakes, not
// forgery: a cursor only says where a page starts.

import { describe } from "../_util.ts";

/** A part of a key past a list's prefix, as a cursor holds it: a string or a number. */
export type CursorKeyPart = string | number;

/** A string's key part: 0x02, its UTF-8 bytes (0x00 written 0x00 0xFF), 0x00. */
const STRING = 0x02;
/** A number's key part: 0x21 and eight bytes. */
const NUMBER = 0x21;
/** The longest cursor KV gives: a key holds at most 2048 bytes, four characters to three of them. */
const MAX_KV_CURSOR = 2_732;

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The cursor a page of `list` (what it lists, its filter and order: any string) gives where KV gave `kvCursor`;
 * `""` (the last page) stays `""`.
 */
export function pageCursor(kvCursor: string, list: string): string {
  return kvCursor && `${kvCursor}.${tagOf(list, kvCursor)}`;
}

/**
 * KV's cursor in a page cursor of `list`, for a read; `undefined` for none (absent or `""`: the first page). Any
 * other cursor that no page of `list` gave, or whose key (its parts past the list's prefix) `accept` refuses, is a
 * `TypeError` naming `cursor`, before anything is read.
 */
export function takeCursor(
  cursor: string | null | undefined,
  list: string,
  accept: (parts: CursorKeyPart[]) => boolean,
  action: string,
): string | undefined {
  if (cursor === undefined || cursor === null || cursor === "") return undefined;
  const kvCursor = kvCursorOf(cursor, list, accept);
  if (kvCursor === null) {
    throw new TypeError(
      `Cannot ${action}: 'cursor' must be one that a page of this list gave, got ${describe(cursor)}`,
    );
  }
  return kvCursor;
}

/**
 * KV's cursor in `cursor`, when a page of `list` gave it and the key it names (its parts past the list's prefix)
 * is one `accept` takes; else `null`.
 */
function kvCursorOf(
  cursor: string,
  list: string,
  accept: (parts: CursorKeyPart[]) => boolean,
): string | null {
  const dot = cursor.lastIndexOf(".");
  if (dot < 0) return null;
  const kvCursor = cursor.slice(0, dot);
  if (cursor.slice(dot + 1) !== tagOf(list, kvCursor)) return null;
  const parts = keyPartsOf(kvCursor);
  return parts !== null && accept(parts) ? kvCursor : null;
}

/** Eight hex digits of FNV-1a (32 bits) over the list and KV's cursor. */
function tagOf(list: string, kvCursor: string): string {
  let hash = 0x811c9dc5;
  for (const c of `${list}\n${kvCursor}`) {
    hash ^= c.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** The parts of the key that KV's cursor names, when it holds only strings and numbers written as KV writes them. */
function keyPartsOf(cursor: string): CursorKeyPart[] | null {
  const bytes = decode(cursor);
  if (bytes === null || bytes.length === 0) return null;
  const parts: CursorKeyPart[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (bytes[at] === NUMBER) {
      if (at + 9 > bytes.length) return null;
      parts.push(numberOf(bytes.subarray(at + 1, at + 9)));
      at += 9;
    } else if (bytes[at] === STRING) {
      const text: number[] = [];
      for (at++;; at++) {
        if (at >= bytes.length) return null; // no end
        if (bytes[at] !== 0x00) text.push(bytes[at]);
        else if (bytes[at + 1] === 0xff) text.push(0x00), at++;
        else break;
      }
      at++;
      try {
        parts.push(utf8.decode(Uint8Array.from(text)));
      } catch {
        return null; // not UTF-8: no string's key part
      }
    } else return null; // bytes, a bigint or a boolean: no list here has such keys
  }
  return parts;
}

/** The bytes of base64url with padding, as KV writes it; `null` for anything else (another spelling of them too). */
function decode(cursor: string): Uint8Array | null {
  if (cursor.length > MAX_KV_CURSOR || !/^[A-Za-z0-9_-]*={0,2}$/.test(cursor)) return null;
  let binary: string;
  try {
    binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
  } catch {
    return null;
  }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  const again = btoa(binary).replaceAll("+", "-").replaceAll("/", "_");
  return again === cursor ? bytes : null;
}

/** A number from its key part's eight bytes: big-endian IEEE 754, the sign bit flipped (every bit, when negative). */
function numberOf(part: Uint8Array): number {
  const bytes = Uint8Array.from(part);
  if (bytes[0] & 0x80) bytes[0] ^= 0x80;
  else for (let i = 0; i < 8; i++) bytes[i] ^= 0xff;
  return new DataView(bytes.buffer).getFloat64(0);
}
