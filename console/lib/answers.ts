/**
 * What a callback answered, as a delivery's page shows it beside the
 * request (GitHub's Response tab): the answer's headers, secrets removed,
 * and the first bytes of its body. Kept for our receiver's answers (every
 * postback it answers) and for a callback's error answers the sandbox
 * logged as platform-side failures.
 *
 * @module
 */

/** The answer to a postback, as kept (its status is the delivery's). */
export interface ResponseInfo {
  /** The answer's headers, lower-cased names; a header that may hold a secret has its value removed. */
  headers: Record<string, string>;
  /** The first bytes of the body (at most {@linkcode MAX_ANSWER_BYTES}), as text. */
  body: string;
  /** Whether the body was longer. */
  cut?: boolean;
}

/** Bytes of an answer's body kept. */
export const MAX_ANSWER_BYTES = 2048;
/** Longest header value kept. */
const MAX_VALUE_CHARS = 512;
/** At most this many headers are kept. */
const MAX_HEADERS = 40;
/** Names that may carry a credential: their values are never kept. */
const SECRET_NAME = /auth|token|secret|key|session|passw|signature|credential|cookie/;

/** The headers of an answer as kept: secrets' values removed, values cut. */
export function answerHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  headers.forEach((value, name) => {
    if (n++ >= MAX_HEADERS) return;
    out[name] = SECRET_NAME.test(name) ? "[removed]" : value.slice(0, MAX_VALUE_CHARS);
  });
  return out;
}

const decoder = new TextDecoder();

/** The first bytes of a body, read at most to {@linkcode MAX_ANSWER_BYTES}; the rest is cancelled. */
async function firstBytes(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<{ text: string; cut: boolean }> {
  const parts: Uint8Array[] = [];
  let length = 0;
  let cut = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      length += value.byteLength;
      if (length > MAX_ANSWER_BYTES) {
        cut = true;
        break;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const all = new Uint8Array(Math.min(length, MAX_ANSWER_BYTES));
  let at = 0;
  for (const part of parts) {
    const take = part.subarray(0, all.byteLength - at);
    all.set(take, at);
    at += take.byteLength;
    if (at >= all.byteLength) break;
  }
  // `stream: true` drops a character cut in half at the end rather than showing U+FFFD.
  return { text: decoder.decode(all, { stream: cut }), cut };
}

/**
 * Reads our receiver's answer (a short JSON body in memory) from a copy, and
 * gives back the answer itself to send, with what is kept of it. A copy of
 * a body held in memory shares it, where building the answer again cost a
 * second response (its headers made native for the server once more) on
 * every postback.
 */
export async function readAnswer(response: Response): Promise<{ response: Response; answer: ResponseInfo }> {
  const text = await response.clone().text();
  const body = text.length > MAX_ANSWER_BYTES ? text.slice(0, MAX_ANSWER_BYTES) : text;
  return {
    response,
    answer: { headers: answerHeaders(response.headers), body, ...(body.length < text.length ? { cut: true } : {}) },
  };
}

/**
 * What is kept of a callback's answer that someone else reads (the sandbox):
 * its headers and the first bytes of a copy of its body, read for at most
 * `timeoutMs` (a body that trickles is cut there).
 */
export async function peekAnswer(response: Response, timeoutMs = 2000): Promise<ResponseInfo> {
  const headers = answerHeaders(response.headers);
  let copy: Response;
  try {
    copy = response.clone();
  } catch {
    return { headers, body: "" }; // its body was read already
  }
  if (!copy.body) return { headers, body: "" };
  const reader = copy.body.getReader();
  // A body that trickles is cut where the time is up: cancelling the reader ends the read.
  const timer = setTimeout(() => reader.cancel().catch(() => {}), timeoutMs);
  try {
    const { text, cut } = await firstBytes(reader).catch(() => ({ text: "", cut: true }));
    return { headers, body: text, ...(cut ? { cut: true } : {}) };
  } finally {
    clearTimeout(timer);
  }
}
