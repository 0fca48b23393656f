// The server's prompt acknowledgement. Deno's KV client speaks HTTP/2 with
// Nagle's algorithm on, and writes a request's headers and a body over 1,024
// bytes in parts: the second part waits until the server acknowledges the
// first. Linux delays that acknowledgement up to 40 ms when the server has
// nothing to send, so every such commit took 40 ms more (docs/scale-out.md,
// "Past one machine"). A server whose kernel acknowledges at once (the route
// attribute `quickack 1`) does not show it, and neither does this front: it
// relays each connection to Deno.serve byte for byte and, when a request has
// arrived in part, sends the client an HTTP/2 PRIORITY frame (RFC 9113 6.3:
// accepted in any stream state, answered by nothing, ignored by the client),
// which carries the acknowledgement. HTTP/1.1 connections are relayed as they
// are.

const PREFACE_LENGTH = 24; // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
const DATA = 0, HEADERS = 1, CONTINUATION = 9, END_STREAM = 1;

/** Follows the frames of one direction of an HTTP/2 connection (RFC 9113 4.1). */
export class FrameCursor {
  #head = new Uint8Array(9);
  #have = 0;
  #rest = 0;
  #skip: number;
  /** The last whole frame header's type, -1 before the first. */
  type: number = -1;
  /** The last whole frame header's flags. */
  flags: number = 0;
  /** The last whole frame header's stream id. */
  stream: number = 0;
  /** The highest stream a HEADERS frame opened (odd: a client's), 0 before one. */
  opened: number = 0;

  /** `skip`: bytes before the first frame (the client's connection preface). */
  constructor(skip = 0) {
    this.#skip = skip;
  }

  /** Takes the next bytes of the direction. */
  feed(bytes: Uint8Array): void {
    let i = Math.min(this.#skip, bytes.length);
    this.#skip -= i;
    while (i < bytes.length) {
      if (this.#rest > 0) {
        const take = Math.min(this.#rest, bytes.length - i);
        this.#rest -= take;
        i += take;
        continue;
      }
      const take = Math.min(9 - this.#have, bytes.length - i);
      this.#head.set(bytes.subarray(i, i + take), this.#have);
      this.#have += take;
      i += take;
      if (this.#have < 9) break;
      const h = this.#head;
      this.#rest = (h[0] << 16) | (h[1] << 8) | h[2];
      this.type = h[3];
      this.flags = h[4];
      this.stream = ((h[5] & 0x7f) << 24 | h[6] << 16 | h[7] << 8 | h[8]) >>> 0;
      if (this.type === HEADERS && this.stream % 2 === 1) this.opened = Math.max(this.opened, this.stream);
      this.#have = 0;
    }
  }

  /** Takes `bytes` up to the end of the frame in progress (or of the next one, between frames); returns how many. */
  toFrameEnd(bytes: Uint8Array): number {
    let used = 0;
    while (used < bytes.length) {
      const need = this.#skip > 0 ? this.#skip : this.#rest > 0 ? this.#rest : 9 - this.#have;
      const take = Math.min(need, bytes.length - used);
      this.feed(bytes.subarray(used, used + take));
      used += take;
      if (this.atBoundary) break;
    }
    return used;
  }

  /** True between frames (and before the preface ends, false). */
  get atBoundary(): boolean {
    return this.#skip === 0 && this.#have === 0 && this.#rest === 0;
  }

  /** True when the bytes so far end inside a request: a frame in part, or a stream's headers or data without its end. */
  get midRequest(): boolean {
    if (!this.atBoundary) return true;
    if (this.type === CONTINUATION) return true;
    return (this.type === DATA || this.type === HEADERS) && (this.flags & END_STREAM) === 0;
  }
}

/** A PRIORITY frame for `stream`: no dependency, default weight. */
export function priorityFrame(stream: number): Uint8Array {
  return new Uint8Array([
    0,
    0,
    5,
    2,
    0,
    (stream >>> 24) & 0x7f,
    (stream >>> 16) & 255,
    (stream >>> 8) & 255,
    stream & 255,
    0,
    0,
    0,
    0,
    15,
  ]);
}

const PREFACE = new TextEncoder().encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/**
 * True when `first` starts with the whole HTTP/2 client preface, false as soon
 * as a byte differs (an HTTP/1.1 method may start "PRI": PRIVATE, PRIZE),
 * undefined while `first` is a shorter part of it.
 */
export function isHttp2(first: Uint8Array): boolean | undefined {
  for (let i = 0; i < Math.min(PREFACE_LENGTH, first.length); i++) if (first[i] !== PREFACE[i]) return false;
  return first.length >= PREFACE_LENGTH ? true : undefined;
}

export { PREFACE_LENGTH };
