// The receiver's body reader: reads a request body chunk by chunk, stops (and
// cancels the stream) once it passes a byte limit or a deadline, so a huge,
// endless or trickling body costs at most the limit plus one chunk.

/** What reading a body came to. */
export type BodyRead =
  | { kind: "ok"; bytes: Uint8Array; head: Uint8Array }
  | { kind: "too-large"; head: Uint8Array }
  | { kind: "timeout"; head: Uint8Array }
  | { kind: "error"; head: Uint8Array };

/** Bytes of the body kept for an attempt's excerpt. */
export const HEAD_BYTES = 2048;

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * Reads `body` whole when it holds at most `maxBytes` and arrives within
 * `timeoutMs`; otherwise stops at the first chunk past the limit, or at the
 * deadline, and cancels the stream without waiting for it.
 */
export async function readBody(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  timeoutMs: number,
): Promise<BodyRead> {
  const empty = new Uint8Array(0);
  if (body === null) return { kind: "ok", bytes: empty, head: empty };
  const chunks: Uint8Array[] = [];
  let total = 0;
  const head = (): Uint8Array => concat(chunks, total).subarray(0, HEAD_BYTES);
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = body.getReader();
  } catch {
    return { kind: "error", head: empty };
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const stop = (): void => {
    reader.cancel().catch(() => {});
  };
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === "timeout") {
        stop();
        return { kind: "timeout", head: head() };
      }
      if (next.done) break;
      const chunk = next.value;
      if (!(chunk instanceof Uint8Array)) {
        stop();
        return { kind: "error", head: head() };
      }
      total += chunk.byteLength;
      if (total > maxBytes) {
        // Keep only what the excerpt needs of the chunk that went over.
        const kept = total - chunk.byteLength;
        total = kept;
        if (kept < HEAD_BYTES) {
          chunks.push(chunk.subarray(0, HEAD_BYTES - kept));
          total += Math.min(chunk.byteLength, HEAD_BYTES - kept);
        }
        stop();
        return { kind: "too-large", head: head() };
      }
      chunks.push(chunk);
    }
  } catch {
    stop();
    return { kind: "error", head: head() };
  } finally {
    clearTimeout(timer);
  }
  const bytes = concat(chunks, total);
  return { kind: "ok", bytes, head: bytes.subarray(0, HEAD_BYTES) };
}
