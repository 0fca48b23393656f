// Watch: the local KV's own `watch` on the decoded keys, each delivery sent
// as a WatchOutput framed by its length (u32, little-endian), with an empty
// frame every 5 s as denokv sends, so a client can tell a quiet watch from a
// dead connection.
import { decodeKey, encodeKey } from "./_key_codec.ts";
import { checkWatch } from "./_limits.ts";
import { encode, pb, SR_SUCCESS } from "./_schema.ts";
import { encodeValue, KvConnectError, versionstampBytes } from "./_values.ts";

const PING_MS = 5000;

function frame(body: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + body.length);
  new DataView(out.buffer).setUint32(0, body.length, true);
  out.set(body, 4);
  return out;
}

/**
 * The WatchOutput of one delivery, or null when no watched key changed
 * since the last one. Every key is sent as changed, with its entry: Deno's
 * client (2.x) reads a key sent as unchanged as absent, not as its last value.
 */
function output(entries: Deno.KvEntryMaybe<unknown>[], last: (string | null | undefined)[]): Uint8Array | null {
  if (entries.every((entry, i) => last[i] !== undefined && last[i] === entry.versionstamp)) return null;
  const keys = entries.map((entry, i) => {
    last[i] = entry.versionstamp;
    if (entry.versionstamp === null) return { changed: true };
    const { data, encoding } = encodeValue(entry.value);
    return {
      changed: true,
      entryIfChanged: {
        key: encodeKey(entry.key),
        value: data,
        encoding,
        versionstamp: versionstampBytes(entry.versionstamp),
      },
    };
  });
  return encode(pb.WatchOutput, { status: SR_SUCCESS, keys });
}

/**
 * Opens a watch on the local KV and returns its framed body. `onEnd` runs
 * once the stream ends (the client went away or the server closes it).
 */
export function watchBody(kv: Deno.Kv, rawKeys: Uint8Array[], onEnd: () => void): {
  body: ReadableStream<Uint8Array>;
  stop: () => void;
} {
  checkWatch(rawKeys);
  let keys: Deno.KvKey[];
  try {
    keys = rawKeys.map((key) => decodeKey(key));
  } catch {
    throw new KvConnectError("A watched key is not a valid Deno KV key.");
  }
  const source = kv.watch(keys).getReader();
  const last: (string | null | undefined)[] = keys.map(() => undefined);
  let timer: ReturnType<typeof setInterval> | undefined;
  let controller: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(timer);
    source.cancel().catch(() => {});
    onEnd();
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      timer = setInterval(() => controller.enqueue(frame(new Uint8Array())), PING_MS);
    },
    async pull(c) {
      for (;;) {
        const next = await source.read().catch(() => ({ done: true as const, value: undefined }));
        if (next.done) {
          end();
          c.close();
          return;
        }
        const message = output(next.value, last);
        if (message) return c.enqueue(frame(message));
      }
    },
    cancel() {
      end();
    },
  });
  return {
    body,
    stop: () => {
      if (ended) return;
      end();
      try {
        controller.close();
      } catch { /* already closed */ }
    },
  };
}
