// HMAC-SHA256 (RFC 2104) from two one-shot SHA-256 hashes. `createHmac`
// builds a stream object and imports the key on every call, three times the
// cost of the two hashes themselves; a receiver checks one signature per
// request, so the padded keys are kept per key (bytes object) and the
// message goes through one reused buffer.

import { hash } from "node:crypto";

/** SHA-256's block: keys are padded (or first hashed) to it. */
const BLOCK = 64;
const IPAD = 0x36;
const OPAD = 0x5c;

/** A key's inner pad (64 bytes), and the outer pad with room for the inner digest (its last 32 bytes). */
interface Pads {
  inner: Uint8Array;
  outer: Uint8Array;
  digest: Uint8Array;
}

const padsByKey = new WeakMap<Uint8Array, Pads>();
const encoder = new TextEncoder();
/** The inner hash's input: the inner pad, then the message (grown when a longer message comes). */
let scratch = new Uint8Array(1024);

function padsOf(key: Uint8Array): Pads {
  let pads = padsByKey.get(key);
  if (pads !== undefined) return pads;
  const block = new Uint8Array(BLOCK);
  block.set(key.byteLength > BLOCK ? Uint8Array.fromHex(hash("sha256", key, "hex")) : key);
  const outer = new Uint8Array(BLOCK + 32);
  outer.set(block.map((b) => b ^ OPAD));
  pads = { inner: block.map((b) => b ^ IPAD), outer, digest: outer.subarray(BLOCK) };
  padsByKey.set(key, pads);
  return pads;
}

/** Where the HMAC is written: one buffer for every call. */
const mac = new Uint8Array(32);

/**
 * The HMAC-SHA256 of `message` (encoded as UTF-8) under `key`: 32 bytes in
 * a buffer this module reuses, so valid until the next call. The digests are
 * decoded into buffers kept for it: under Deno a new typed array costs about
 * a microsecond, as much as one of the hashes.
 */
export function hmacSha256(key: Uint8Array, message: string): Uint8Array {
  const { inner, outer, digest } = padsOf(key);
  const most = BLOCK + message.length * 3;
  if (scratch.byteLength < most) scratch = new Uint8Array(Math.max(most, scratch.byteLength * 2));
  scratch.set(inner);
  const { written } = encoder.encodeInto(message, scratch.subarray(BLOCK));
  digest.setFromHex(hash("sha256", scratch.subarray(0, BLOCK + written), "hex"));
  mac.setFromHex(hash("sha256", outer, "hex"));
  return mac;
}
