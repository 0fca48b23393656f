// Snapshot reads: byte ranges of the wire served from the local KV. A range
// bound is a key's bytes, possibly followed by a byte that is not a whole key
// part (0x00 after a key for "just past it", 0xff for "past all its
// children"); the local KV is listed from the nearest whole key and each
// entry is kept only if its bytes fall in the range.
import { compareBytes, decodeKey, decodeKeyPrefix, encodeKey } from "./_key_codec.ts";
import type { KvEntryMsg, ReadRangeMsg } from "./_schema.ts";
import { encodeValue, versionstampBytes } from "./_values.ts";

function toMessage(entry: Deno.KvEntry<unknown>, key: Uint8Array): KvEntryMsg {
  const { data, encoding } = encodeValue(entry.value);
  return { key, value: data, encoding, versionstamp: versionstampBytes(entry.versionstamp) };
}

/** The key a range that reads exactly one key reads, or null. */
function singleKey(range: ReadRangeMsg): Deno.KvKey | null {
  const { start, end } = range;
  if (end.length !== start.length + 1 || end[end.length - 1] !== 0) return null;
  if (compareBytes(start, end.subarray(0, start.length)) !== 0) return null;
  try {
    return decodeKey(start);
  } catch {
    return null;
  }
}

async function* forward(kv: Deno.Kv, start: Uint8Array, batchSize: number): AsyncGenerator<Deno.KvEntry<unknown>> {
  const from = decodeKeyPrefix(start).key;
  if (from.length === 0) yield* kv.list({ prefix: [] }, { batchSize });
  else yield* kv.list({ prefix: [], start: from }, { batchSize });
}

async function* backward(kv: Deno.Kv, end: Uint8Array, batchSize: number): AsyncGenerator<Deno.KvEntry<unknown>> {
  const { key, length } = decodeKeyPrefix(end);
  if (length < end.length) {
    // Bytes past the whole key: the key's children and the key itself may fall before `end`.
    if (key.length > 0) {
      yield* kv.list({ prefix: key }, { reverse: true, batchSize });
      const self = await kv.get(key);
      if (self.versionstamp !== null) yield self;
    } else {
      yield* kv.list({ prefix: [] }, { reverse: true, batchSize });
      return;
    }
  }
  if (key.length === 0) return;
  yield* kv.list({ prefix: [], end: key }, { reverse: true, batchSize });
}

async function readRange(kv: Deno.Kv, range: ReadRangeMsg): Promise<KvEntryMsg[]> {
  const out: KvEntryMsg[] = [];
  if (compareBytes(range.start, range.end) >= 0) return out;
  // One more than the limit: a bound just past a key skips that key.
  const batchSize = Math.min(range.limit + 1, 500);
  const entries = range.reverse ? backward(kv, range.end, batchSize) : forward(kv, range.start, batchSize);
  for await (const entry of entries) {
    const key = encodeKey(entry.key);
    if (range.reverse) {
      if (compareBytes(key, range.end) >= 0) continue;
      if (compareBytes(key, range.start) < 0) break;
    } else {
      if (compareBytes(key, range.start) < 0) continue;
      if (compareBytes(key, range.end) >= 0) break;
    }
    out.push(toMessage(entry, key));
    if (out.length >= range.limit) break;
  }
  return out;
}

/**
 * Reads the ranges from the local KV. When every range is one key (what
 * `get` and `getMany` send), they are read in one local `getMany`, one
 * snapshot; other ranges are listed one after another.
 */
export async function snapshotRead(kv: Deno.Kv, ranges: ReadRangeMsg[]): Promise<KvEntryMsg[][]> {
  const keys = ranges.map(singleKey);
  if (keys.length > 0 && keys.every((key) => key !== null)) {
    const entries = await kv.getMany(keys as Deno.KvKey[]);
    return entries.map((entry, i) => entry.versionstamp === null ? [] : [toMessage(entry, ranges[i].start)]);
  }
  const out: KvEntryMsg[][] = [];
  for (const range of ranges) out.push(await readRange(kv, range));
  return out;
}
