// The receiver's body reader: reads a request body chunk by chunk, stops (and
// cancels the stream) once it passes a byte limit or a deadline, so a huge,
// endless or trickling body costs at most the limit plus one chunk. A body
// that Deno.serve frames by its declared length is read in one native call.
//
// Memory stays in proportion to the bytes received: each chunk is copied into
// one growing buffer (a chunk is often a view of a 64 KiB read buffer, and
// keeping the view would pin all of it), and the deadline (one of the
// receiver's Deadlines, one timer for all its requests) cancels the reader,
// not a promise each read is raced against (every race would leave a
// reaction on it holding that read's chunk until the deadline).

import type { Deadlines } from "./_deadlines.ts";

/** What reading a body came to. */
export type BodyRead =
  | { kind: "ok"; bytes: Uint8Array; head: Uint8Array }
  | { kind: "too-large"; head: Uint8Array }
  | { kind: "timeout"; head: Uint8Array }
  | { kind: "error"; head: Uint8Array };

/** No bytes: what an empty or unread body comes to (zero-length, so nothing can write into it). */
export const EMPTY: Uint8Array = new Uint8Array(0);

/** Bytes of the body kept for an attempt's excerpt. */
export const HEAD_BYTES = 2048;

/** Bytes gathered so far, copied into a buffer that at least doubles when it grows. */
class Gathered {
  #buffer = new Uint8Array(0);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  append(chunk: Uint8Array): void {
    if (this.#length === 0) {
      // The first chunk (often the whole body): one copy, sized to fit.
      this.#buffer = chunk.slice();
      this.#length = chunk.byteLength;
      return;
    }
    const needed = this.#length + chunk.byteLength;
    if (needed > this.#buffer.byteLength) {
      const grown = new Uint8Array(Math.max(needed, 2 * this.#buffer.byteLength, 256));
      grown.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = grown;
    }
    this.#buffer.set(chunk, this.#length);
    this.#length = needed;
  }

  /** The first `count` bytes (all by default), sized to fit; the buffer itself when that is all of it. */
  take(count = this.#length): Uint8Array {
    if (count >= this.#length && this.#buffer.byteLength === this.#length) return this.#buffer;
    return this.#buffer.slice(0, Math.min(count, this.#length));
  }
}

/**
 * Reads `body` whole when it holds at most `maxBytes` and arrives within
 * `timeoutMs`; otherwise stops at the first chunk past the limit, or at the
 * deadline, and cancels the stream without waiting for it. With `release`
 * (a served request), those two stops release the reader instead and leave
 * the stream to {@linkcode closeAfterAnswer}.
 */
export async function readBody(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  deadlines: Deadlines,
  release = false,
): Promise<BodyRead> {
  if (body === null) return { kind: "ok", bytes: EMPTY, head: EMPTY };
  const gathered = new Gathered();
  const head = (): Uint8Array => gathered.take(HEAD_BYTES);
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = body.getReader();
  } catch {
    return { kind: "error", head: EMPTY };
  }
  const stop = (): void => {
    reader.cancel().catch(() => {});
  };
  // Past the limit or the deadline: cancelled now, or (served) released, to be cancelled once answered.
  const leave = release ? () => reader.releaseLock() : stop;
  // At the deadline the reader is cancelled (a pending read ends with `done`) or released (it rejects).
  let timedOut = false;
  const done = deadlines.start(() => {
    timedOut = true;
    leave();
  });
  try {
    for (;;) {
      const next = await reader.read();
      if (timedOut) return { kind: "timeout", head: head() };
      if (next.done) break;
      const chunk = next.value;
      if (!(chunk instanceof Uint8Array)) {
        stop();
        return { kind: "error", head: head() };
      }
      if (gathered.length + chunk.byteLength > maxBytes) {
        // Keep only what the excerpt needs of the chunk that went over.
        if (gathered.length < HEAD_BYTES) gathered.append(chunk.subarray(0, HEAD_BYTES - gathered.length));
        leave();
        return { kind: "too-large", head: head() };
      }
      gathered.append(chunk);
    }
  } catch {
    if (timedOut) return { kind: "timeout", head: head() };
    stop();
    return { kind: "error", head: head() };
  } finally {
    done();
  }
  const bytes = gathered.take();
  return { kind: "ok", bytes, head: bytes.subarray(0, HEAD_BYTES) };
}

/**
 * Cancels a request's body that nobody read yet, so the client's upload
 * stops. A body read already (whole, or stopped by its reader) is left
 * alone: asking for a served request's `body` then would only make a stream.
 */
export function discardBody(request: Request): void {
  if (!request.bodyUsed) request.body?.cancel().catch(() => {});
}

/**
 * Makes Deno.serve close the connection of a served request whose body was
 * left unread (a `408` or `413`, answered with `Connection: close`). Deno
 * 2.9.6 keeps such a connection, and reads on, for as long as the client
 * sends, whatever the answer says; it drops it when the body's stream is
 * cancelled after the answer went out (cancelled before, as
 * {@linkcode discardBody} does, the connection stays). So the stream, taken
 * here while the request is still being handled, is read (a read pending:
 * an untouched body never gets the connection) and cancelled
 * {@linkcode CLOSE_DELAY_MS} after `info.completed`. A body read in one native call cannot be cancelled: that
 * connection stays until its declared bytes (at most `maxBytes`) are in.
 */
export function closeAfterAnswer(request: Request, info: Deno.ServeHandlerInfo): void {
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    const body = request.body;
    if (body === null) return;
    reader = body.getReader();
  } catch {
    return; // read natively (locked), or not a stream any more
  }
  reader.read().catch(() => {});
  const cancel = () => {
    const timer = setTimeout(() => reader.cancel().catch(() => {}), CLOSE_DELAY_MS);
    Deno.unrefTimer(timer);
  };
  info.completed.then(cancel, cancel);
}

/**
 * How long after the answer went out its connection is dropped: long enough
 * for the answer to reach a client on another continent before the socket
 * closes (with the client's unread bytes, Linux resets it and drops what is
 * still unsent), short enough to cost a trickling client nothing.
 */
const CLOSE_DELAY_MS = 250;

/** The declared length of a body when its framing is that length (Content-Length without Transfer-Encoding). */
function declaredLength(headers: Headers): number | null {
  if (headers.has("transfer-encoding")) return null;
  const text = headers.get("content-length")?.trim();
  return text && /^\d{1,15}$/.test(text) ? Number(text) : null;
}

/**
 * Reads a request's body as {@linkcode readBody} does. When `framed` (the
 * request is the one Deno.serve handed over, whose body ends at its declared
 * Content-Length) and that length is within `maxBytes`, the body is read in
 * one native call instead, without a stream: a served request's stream stays
 * reachable until the next full garbage collection, and with it everything
 * it holds, which a busy receiver pays for in collection pauses. Past the
 * deadline the answer is a timeout; the server then goes on taking the
 * declared bytes (at most `maxBytes`, held natively) until the client ends
 * or drops the connection.
 */
export async function readRequestBody(
  request: Request,
  maxBytes: number,
  deadlines: Deadlines,
  framed: boolean,
): Promise<BodyRead> {
  const declared = framed ? declaredLength(request.headers) : null;
  if (declared === null || declared > maxBytes) return await readBody(request.body, maxBytes, deadlines, framed);
  let expire!: () => void;
  const late = new Promise<null>((resolve) => expire = () => resolve(null));
  const done = deadlines.start(expire);
  const reading = request.bytes();
  reading.catch(() => {}); // after a timeout nobody waits for it
  try {
    const bytes = await Promise.race([reading, late]);
    if (bytes === null) return { kind: "timeout", head: EMPTY };
    return { kind: "ok", bytes, head: bytes.subarray(0, HEAD_BYTES) };
  } catch {
    return { kind: "error", head: EMPTY };
  } finally {
    done();
  }
}
