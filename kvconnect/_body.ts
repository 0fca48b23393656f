// Request bodies read with denokv's cap: denokv takes its bodies through
// axum's `Bytes` and `Json` extractors, which stop at axum's default body
// limit (2 MiB) and answer 413. A declared length past it is refused before
// anything is read; a body without one is read until it passes the limit,
// and the rest is never read.
import { KvConnectError } from "./_values.ts";
import { MAX_REQUEST_BYTES, REQUEST_TOO_LARGE } from "./_limits.ts";

function tooLarge(): never {
  throw new KvConnectError(REQUEST_TOO_LARGE, 413);
}

/** Drops a body that will not be read, so that the client's upload ends. */
export function discard(request: Request): void {
  request.body?.cancel().catch(() => {});
}

/** The whole body of `request`, at most `max` bytes; past that, 413 with denokv's message. */
export async function readBody(request: Request, max = MAX_REQUEST_BYTES): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > max) {
    discard(request);
    tooLarge();
  }
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => {});
      tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}
