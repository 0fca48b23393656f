// Helpers of the memory tests (tests/webhooks/receiver/body_memory_test.ts,
// tests/console/body_memory_test.ts): a child process that serves and reports
// its heap plus external bytes after a full GC on GET /memory, raw TCP
// requests whose body (chunked, or of declared length) arrives one byte at a
// time, and the measure both tests take of three such bodies.

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));

/** A child process serving on 127.0.0.1 with GET /memory. */
export interface MemoryChild {
  port: number;
  /** Heap used plus external memory of the child after a full GC, in bytes. */
  memory(): Promise<number>;
  /** Kills the child and reaps it. */
  close(): Promise<void>;
}

/**
 * Runs `script` (which prints `listening <port>` once it serves) with
 * `--v8-flags=--expose-gc` and the project's deno.json, and `args` after it.
 */
export async function startMemoryChild(script: string, args: string[] = []): Promise<MemoryChild> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--config", CONFIG, "--v8-flags=--expose-gc", script, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
    env: { NO_COLOR: "1" },
  }).spawn();
  const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const close = async (): Promise<void> => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await stdout.cancel().catch(() => {});
    await child.status;
  };
  let text = "";
  try {
    while (!/^listening \d+$/m.test(text)) {
      const { value, done } = await stdout.read();
      if (done) throw new Error(`The child's stdout ended before it listened: ${text}`);
      text += value;
    }
  } catch (error) {
    await close();
    throw error;
  }
  const port = Number(/^listening (\d+)$/m.exec(text)![1]);
  return {
    port,
    async memory() {
      const response = await fetch(`http://127.0.0.1:${port}/memory`);
      const { bytes } = await response.json();
      assert.equal(typeof bytes, "number");
      return bytes;
    },
    close,
  };
}

const encoder = new TextEncoder();

/**
 * Opens a POST to `path` and sends `count` one-byte chunks, one a
 * millisecond; leaves the body open. The body is chunked, or with `declared`
 * it declares that length (Content-Length) and its bytes come as they are.
 */
export async function trickle(port: number, path: string, count: number, declared?: number): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  conn.setNoDelay(true);
  const framing = declared === undefined ? "Transfer-Encoding: chunked" : `Content-Length: ${declared}`;
  await conn.write(encoder.encode(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `${framing}\r\nConnection: close\r\n\r\n`,
  ));
  const chunk = encoder.encode(declared === undefined ? "1\r\n \r\n" : " ");
  for (let i = 0; i < count; i++) {
    await conn.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return conn;
}

/**
 * Ends a trickled body and reads the answer's status line (the connection is
 * closed after it): the last chunk, or with `rest` that many more bytes of a
 * declared length.
 */
export async function finish(conn: Deno.TcpConn, rest?: number): Promise<string> {
  await conn.write(encoder.encode(rest === undefined ? "0\r\n\r\n" : " ".repeat(rest)));
  const answer = new TextDecoder().decode((await new Response(conn.readable).arrayBuffer()).slice(0, 200));
  return answer.split("\r\n")[0];
}

/** Closes connections, ignoring those closed already. */
export function closeAll(conns: Deno.TcpConn[]): void {
  for (const conn of conns) {
    try {
      conn.close();
    } catch {
      // Closed already (finish() read it to its end).
    }
  }
}

/** Bytes each of {@linkcode assertThreeTrickledBounded}'s bodies sends before the measure. */
const BYTES_EACH = 2_500;
/** How much memory those three open bodies may grow the child by. */
const LIMIT = 64 * 1024 * 1024;

/**
 * Sends three bodies to `path` of a memory child running `script`, one byte
 * a millisecond (chunked, or with `declared` of that length), and while they
 * are still open asserts that the child's heap plus external memory grew by
 * less than 64 MB; then ends them and asserts each was answered 401 (they
 * are unsigned: read whole, then judged by their missing header).
 */
export async function assertThreeTrickledBounded(script: string, path: string, declared?: number): Promise<void> {
  const child = await startMemoryChild(script);
  const conns: Deno.TcpConn[] = [];
  try {
    // Warm up the server's paths once, so the baseline holds what a first request loads.
    await child.memory();
    const before = await child.memory();
    conns.push(...await Promise.all([0, 1, 2].map(() => trickle(child.port, path, BYTES_EACH, declared))));
    const after = await child.memory();
    const growth = after - before;
    console.log(
      `heap+external: before ${(before / 2 ** 20).toFixed(1)} MB, after ${(after / 2 ** 20).toFixed(1)} MB, growth ${
        (growth / 2 ** 20).toFixed(1)
      } MB`,
    );
    assert.ok(
      growth < LIMIT,
      `Three bodies of ${BYTES_EACH} bytes grew the heap by ${(growth / 2 ** 20).toFixed(1)} MB`,
    );
    for (const conn of conns) {
      assert.equal(await finish(conn, declared && declared - BYTES_EACH), "HTTP/1.1 401 Unauthorized");
    }
  } finally {
    closeAll(conns);
    await child.close();
  }
}

/** A body trickled until the server closes its connection, and what the server did. */
export interface SlowBody {
  /** The answer's status line, once one came ("" before). */
  status(): string;
  /** When (performance.now) the server closed the connection, or `null` while it is open. */
  closedAt(): number | null;
  /** Stops trickling and closes the connection (if the server did not). */
  stop(): void;
}

/**
 * Opens a chunked POST to `path` and sends a one-byte chunk every
 * `everyMs` (4 B/s by default) for as long as the server keeps the
 * connection open and `stop()` was not called, reading what it answers.
 */
export async function trickleSlowly(port: number, path: string, everyMs = 250): Promise<SlowBody> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  conn.setNoDelay(true);
  let answer = "";
  let closedAt: number | null = null;
  let stopped = false;
  const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
    `Transfer-Encoding: chunked\r\n\r\n`;
  await conn.write(encoder.encode(head));
  const decoder = new TextDecoder();
  void (async () => {
    const buffer = new Uint8Array(4096);
    for (;;) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      if (answer.length < 200) answer += decoder.decode(buffer.subarray(0, n));
    }
    closedAt ??= performance.now();
  })();
  const chunk = encoder.encode("1\r\n \r\n");
  const timer = setInterval(() => {
    if (stopped || closedAt !== null) return;
    conn.write(chunk).catch(() => closedAt ??= performance.now());
  }, everyMs);
  return {
    status: () => answer.split("\r\n")[0],
    closedAt: () => closedAt,
    stop() {
      stopped = true;
      clearInterval(timer);
      try {
        conn.close();
      } catch {
        // Closed already.
      }
    },
  };
}
