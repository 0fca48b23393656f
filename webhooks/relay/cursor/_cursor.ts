// The cursors of the pages of dead letters. KV's cursor is the key it
// stopped at, past the list's prefix, in base64url with padding; KV itself
// refuses only one it cannot decode, so a made-up one ("zzzz") read as an
// empty last page, and another list's (destination A's given for B's) as a
// place in this one. A page's cursor is KV's, a dot and a tag of the list it
// belongs to (its filter and order); it is taken back only for that list, and
// only when KV's part is, byte for byte, what KV gives for a key of that list:
// an entry id, after the time of death on a hook's list. The tag catches
// mistakes, not forgery: a cursor only says where a page starts.

/** The keys past a list's prefix: `["msg_…"]` (every dead letter, a destination's) or `[deadAt, "msg_…"]` (a hook's). */
export type CursorShape = "id" | "timeAndId";

/** An entry id: `msg_` and a ULID (Crockford's base32). */
const ENTRY_ID = /^msg_[0-9A-HJKMNP-TV-Z]{26}$/;

/** A string's key part: 0x02, its UTF-8 bytes, 0x00 (an entry id holds no 0x00 to escape). */
const STRING = 0x02;
/** A number's key part: 0x21 and eight bytes. */
const NUMBER = 0x21;
/** The length of an entry id's key part. */
const ID_PART = 1 + 30 + 1;

/** The cursor a page of `list` (its filter and order, any string) gives where KV gave `kvCursor`. */
export function pageCursor(kvCursor: string, list: string): string {
  return `${kvCursor}.${tagOf(list, kvCursor)}`;
}

/** KV's cursor in `cursor`, when a page of `list`, whose keys are of `shape`, gave it; else `null`. */
export function kvCursorOf(cursor: string, list: string, shape: CursorShape): string | null {
  const dot = cursor.lastIndexOf(".");
  if (dot < 0) return null;
  const kvCursor = cursor.slice(0, dot);
  if (cursor.slice(dot + 1) !== tagOf(list, kvCursor) || !isKvCursor(kvCursor, shape)) return null;
  return kvCursor;
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

/** Whether `cursor` is one that KV gives for a list of keys of `shape`. */
function isKvCursor(cursor: string, shape: CursorShape): boolean {
  const bytes = decode(cursor);
  if (bytes === null) return false;
  let at = 0;
  if (shape === "timeAndId") {
    if (bytes.length !== 9 + ID_PART || bytes[0] !== NUMBER) return false;
    const time = numberOf(bytes.subarray(1, 9));
    if (!Number.isSafeInteger(time) || time < 0) return false;
    at = 9;
  } else if (bytes.length !== ID_PART) return false;
  if (bytes[at] !== STRING || bytes[bytes.length - 1] !== 0x00) return false;
  return ENTRY_ID.test(String.fromCharCode(...bytes.subarray(at + 1, bytes.length - 1)));
}

/** The bytes of base64url with padding, as KV writes it; `null` for anything else (another spelling of them too). */
function decode(cursor: string): Uint8Array | null {
  if (cursor.length > 100 || !/^[A-Za-z0-9_-]*={0,2}$/.test(cursor)) return null;
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
