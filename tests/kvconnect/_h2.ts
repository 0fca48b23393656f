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
