// A raw HTTP/1.1 client over a TCP socket, for requests fetch cannot write
// (obs-fold, chunk extensions and trailers, two Content-Length headers,
// pipelining): sends bytes as given and reads every answer until the server
// closes the connection or goes quiet.

/** One answer read off the wire: its status, its headers (names in lower case) and its body. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What a raw exchange gave: the answers in order, and whether the server closed the connection. */
export interface RawExchange {
  answers: RawAnswer[];
  closed: boolean;
}

/** Parses the answers in `text` (bodies framed by Content-Length or chunked). */
export function parseAnswers(text: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = text;
  while (rest.startsWith("HTTP/")) {
    const end = rest.indexOf("\r\n\r\n");
    if (end === -1) break;
    const [line, ...fields] = rest.slice(0, end).split("\r\n");
    const headers: Record<string, string> = {};
    for (const field of fields) {
      const colon = field.indexOf(":");
      headers[field.slice(0, colon).toLowerCase()] = field.slice(colon + 1).trim();
    }
    rest = rest.slice(end + 4);
    let body = "";
    if (headers["transfer-encoding"] === "chunked") {
      for (;;) {
        const eol = rest.indexOf("\r\n");
        const size = parseInt(rest.slice(0, eol), 16);
        rest = rest.slice(eol + 2);
        if (!size) {
          rest = rest.slice(rest.indexOf("\r\n") + 2);
          break;
        }
        body += rest.slice(0, size);
        rest = rest.slice(size + 2);
      }
    } else {
      const length = Number(headers["content-length"] ?? 0);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    }
    answers.push({ status: Number(line.split(" ")[1]), headers, body });
  }
  return answers;
}

/** How many whole answers `text` (one character a byte) holds: heads ended, bodies there to their length or last chunk. */
function wholeAnswers(text: string): number {
  let count = 0;
  let rest = text;
  while (rest.startsWith("HTTP/")) {
    const end = rest.indexOf("\r\n\r\n");
    if (end === -1) return count;
    const head = rest.slice(0, end).toLowerCase();
    rest = rest.slice(end + 4);
    if (/\r\ntransfer-encoding: *chunked/.test(head)) {
      const last = rest.indexOf("\r\n0\r\n\r\n");
      const empty = rest.startsWith("0\r\n\r\n");
      if (!empty && last === -1) return count;
      rest = empty ? rest.slice(5) : rest.slice(last + 7);
    } else {
      const length = Number(/\r\ncontent-length: *(\d+)/.exec(head)?.[1] ?? 0);
      if (rest.length < length) return count;
      rest = rest.slice(length);
    }
    count++;
  }
  return count;
}

/** How long a read waits for an answer it expects (`expect`) before it gives up: a hang made a failure. */
const EXPECTED_WITHIN_MS = 30_000;

/**
 * Sends `parts` on one connection to 127.0.0.1:`port` (each after `gapMs`; as UTF-8, or with `latin1` one byte per
 * character, for raw bytes), then reads until the server closes or sends nothing for `quietMs`. Until `expect`
 * answers came whole, quiet is waited out for {@linkcode EXPECTED_WITHIN_MS} instead: `quietMs` only bounds the wait
 * for an answer too many, not for the ones expected, which a loaded machine can be slower than `quietMs` to send.
 */
export async function rawExchange(
  port: number,
  parts: string[],
  options: { gapMs?: number; quietMs?: number; latin1?: boolean; expect?: number } = {},
): Promise<RawExchange> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const chunks: Uint8Array[] = [];
  let closed = false;
  const reading = (async () => {
    const buffer = new Uint8Array(65536);
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waiting = wholeAnswers(new TextDecoder("latin1").decode(joined(chunks))) < (options.expect ?? 0);
      const quiet = new Promise<"quiet">((resolve) =>
        timer = setTimeout(() => resolve("quiet"), waiting ? EXPECTED_WITHIN_MS : options.quietMs ?? 1500)
      );
      const n = await Promise.race([conn.read(buffer).catch(() => null), quiet]);
      clearTimeout(timer);
      if (n === "quiet") return;
      if (n === null) {
        closed = true;
        return;
      }
      chunks.push(buffer.slice(0, n));
    }
  })();
  try {
    for (const part of parts) {
      if (options.gapMs) await new Promise((resolve) => setTimeout(resolve, options.gapMs));
      const bytes = options.latin1 ? Uint8Array.from(part, (c) => c.charCodeAt(0)) : new TextEncoder().encode(part);
      await conn.write(bytes).catch(() => {});
    }
    await reading;
  } finally {
    conn.close();
  }
  const text = new TextDecoder().decode(joined(chunks));
  return { answers: parseAnswers(text), closed };
}

function joined(chunks: Uint8Array[]): Uint8Array {
  return new Uint8Array(chunks.flatMap((c) => [...c]));
}
