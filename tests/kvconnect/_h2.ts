// HTTP/2 bytes for raw-socket tests of the test server's front: the client's
// connection preface, and a frame (RFC 9113 4.1).

/** The client's connection preface. */
export const PREFACE: Uint8Array = new TextEncoder().encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** One frame: its 9-byte header, then `payload`. */
export function frame(type: number, flags: number, stream: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(9 + payload.length);
  out.set([payload.length >> 16, (payload.length >> 8) & 255, payload.length & 255, type, flags]);
  new DataView(out.buffer).setUint32(5, stream);
  out.set(payload, 9);
  return out;
}

/** A frame's header as read: its type, flags and stream id. */
export type FrameHead = [type: number, flags: number, stream: number];

/**
 * Reads whole frames from `conn` into a list, in order, until `done(list)` is true after a frame or the connection
 * ends; `done` may write to the connection meanwhile.
 */
export async function readFrames(
  conn: Deno.Conn,
  done: (seen: FrameHead[]) => boolean | Promise<boolean>,
): Promise<FrameHead[]> {
  const seen: FrameHead[] = [];
  let pending = new Uint8Array();
  const buffer = new Uint8Array(4096);
  for (let n; (n = await conn.read(buffer)) !== null;) {
    const bytes = new Uint8Array([...pending, ...buffer.subarray(0, n)]);
    let at = 0;
    while (bytes.length - at >= 9) {
      const length = (bytes[at] << 16) | (bytes[at + 1] << 8) | bytes[at + 2];
      if (bytes.length - at < 9 + length) break;
      seen.push([bytes[at + 3], bytes[at + 4], new DataView(bytes.buffer, at + 5).getUint32(0) & 0x7fffffff]);
      at += 9 + length;
      if (await done(seen)) return seen;
    }
    pending = bytes.slice(at);
  }
  return seen;
}
