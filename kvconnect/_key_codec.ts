// Deno KV's key encoding (the ordered tuple layout denokv documents in
// `proto/codec.rs`): the bytes a KV Connect client sends for keys and range
// bounds. Byte order of encoded keys is the order of keys.

const BYTES = 0x01;
const STRING = 0x02;
const NEGINTSTART = 0x0b;
const INTZERO = 0x14;
const POSINTEND = 0x1d;
const DOUBLE = 0x21;
const FALSE = 0x26;
const TRUE = 0x27;
const ESCAPE = 0xff;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function escaped(out: number[], bytes: Uint8Array): void {
  for (const b of bytes) {
    out.push(b);
    if (b === 0) out.push(ESCAPE);
  }
  out.push(0);
}

function bigintBytes(n: bigint): number[] {
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  return bytes;
}

function encodeInt(out: number[], n: bigint): void {
  if (n === 0n) {
    out.push(INTZERO);
    return;
  }
  const bytes = bigintBytes(n < 0n ? -n : n);
  const size = bytes.length;
  if (size > 255) throw new RangeError(`Cannot encode key: integer has more than 255 bytes`);
  if (n > 0n) {
    out.push(...(size <= 8 ? [INTZERO + size] : [POSINTEND, size]), ...bytes);
  } else {
    out.push(...(size <= 8 ? [INTZERO - size] : [NEGINTSTART, size ^ 0xff]), ...bytes.map((b) => b ^ 0xff));
  }
}

function encodeDouble(out: number[], x: number): void {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Number.isNaN(x) ? NaN : x);
  const bytes = new Uint8Array(view.buffer);
  if (bytes[0] & 0x80) {
    for (let i = 0; i < 8; i++) bytes[i] ^= 0xff;
  } else {
    bytes[0] ^= 0x80;
  }
  out.push(DOUBLE, ...bytes);
}

/** Encodes a Deno KV key as the bytes KV Connect carries. */
export function encodeKey(key: Deno.KvKey): Uint8Array {
  const out: number[] = [];
  for (const part of key) {
    if (typeof part === "string") {
      out.push(STRING);
      escaped(out, encoder.encode(part));
    } else if (part instanceof Uint8Array) {
      out.push(BYTES);
      escaped(out, part);
    } else if (typeof part === "bigint") encodeInt(out, part);
    else if (typeof part === "number") encodeDouble(out, part);
    else if (part === false) out.push(FALSE);
    else if (part === true) out.push(TRUE);
    else throw new TypeError(`Cannot encode key: unsupported key part ${String(part)}`);
  }
  return new Uint8Array(out);
}

function slice(bytes: Uint8Array, at: number): [Uint8Array, number] | null {
  const out: number[] = [];
  let i = at;
  while (i < bytes.length) {
    const b = bytes[i++];
    if (b === 0) {
      if (bytes[i] === ESCAPE) {
        out.push(0);
        i++;
        continue;
      }
      return [new Uint8Array(out), i];
    }
    out.push(b);
  }
  return null;
}

function fromBytes(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

/** One key part starting at `at`, with the offset after it, or null when the bytes there are not a whole part. */
function decodePart(bytes: Uint8Array, at: number): [Deno.KvKeyPart, number] | null {
  const tag = bytes[at];
  const rest = at + 1;
  if (tag === STRING || tag === BYTES) {
    const found = slice(bytes, rest);
    if (!found) return null;
    if (tag === BYTES) return found;
    try {
      return [decoder.decode(found[0]), found[1]];
    } catch {
      return null;
    }
  }
  if (tag === FALSE) return [false, rest];
  if (tag === TRUE) return [true, rest];
  if (tag === DOUBLE) {
    if (rest + 8 > bytes.length) return null;
    const raw = bytes.slice(rest, rest + 8);
    if (raw[0] & 0x80) raw[0] ^= 0x80;
    else for (let i = 0; i < 8; i++) raw[i] ^= 0xff;
    return [new DataView(raw.buffer).getFloat64(0), rest + 8];
  }
  if (tag >= NEGINTSTART && tag <= POSINTEND) {
    let size: number;
    let from = rest;
    if (tag === POSINTEND || tag === NEGINTSTART) {
      if (rest >= bytes.length) return null;
      size = tag === POSINTEND ? bytes[rest] : bytes[rest] ^ 0xff;
      from = rest + 1;
    } else size = Math.abs(tag - INTZERO);
    if (from + size > bytes.length) return null;
    const raw = bytes.subarray(from, from + size);
    const negative = tag < INTZERO;
    const n = negative ? -fromBytes(raw.map((b) => b ^ 0xff)) : fromBytes(raw);
    return [n, from + size];
  }
  return null;
}

/**
 * Decodes the longest run of whole key parts at the start of `bytes`:
 * the key, and how many bytes it took. A range bound such as a key followed
 * by 0x00 or 0xff decodes to that key with bytes left over.
 */
export function decodeKeyPrefix(bytes: Uint8Array): { key: Deno.KvKey; length: number } {
  const key: Deno.KvKeyPart[] = [];
  let at = 0;
  while (at < bytes.length) {
    const part = decodePart(bytes, at);
    if (!part) break;
    key.push(part[0]);
    at = part[1];
  }
  return { key, length: at };
}

/** Decodes bytes that must be exactly one key. */
export function decodeKey(bytes: Uint8Array): Deno.KvKey {
  const { key, length } = decodeKeyPrefix(bytes);
  if (length !== bytes.length) throw new TypeError("Invalid key encoding");
  return key;
}

/** Compares two byte strings as Deno KV orders keys. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] - b[i];
  }
  return a.length - b.length;
}
