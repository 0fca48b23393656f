// The receiver's body reader holds memory in proportion to the bytes received:
// a receiver in a child process is sent three bodies one byte per millisecond
// (chunked, one chunk per byte), and its heap plus external memory is measured
// after a full GC while the three connections are still open.

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { CONFIG_PATH } from "./_child.ts";

const CHILD = fileURLToPath(new URL("_body_memory_child.ts", import.meta.url));
const CONNECTIONS = 3;
const BYTES_EACH = 2_500;
const LIMIT = 64 * 1024 * 1024;

async function readLine(reader: ReadableStreamDefaultReader<string>, seen: { text: string }): Promise<string> {
  for (;;) {
    const newline = seen.text.indexOf("\n");
    if (newline >= 0) {
      const line = seen.text.slice(0, newline);
      seen.text = seen.text.slice(newline + 1);
      return line;
    }
    const { value, done } = await reader.read();
    if (done) throw new Error(`The child's stdout ended; seen: ${seen.text}`);
    seen.text += value;
  }
}

async function memory(port: number): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/memory`);
  const { bytes } = await response.json();
  assert.equal(typeof bytes, "number");
  return bytes;
}

/** Opens a chunked POST and sends `count` one-byte chunks, one a millisecond; leaves the body open. */
async function trickle(port: number, count: number): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  conn.setNoDelay(true);
  const encoder = new TextEncoder();
  await conn.write(encoder.encode(
    "POST /hooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
      "Transfer-Encoding: chunked\r\n\r\n",
  ));
  const chunk = encoder.encode("1\r\n \r\n");
  for (let i = 0; i < count; i++) {
    await conn.write(chunk);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return conn;
}

Deno.test("readBody() holds memory in proportion to the bytes of three trickling bodies, not a buffer per chunk", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--config", CONFIG_PATH, "--v8-flags=--expose-gc", CHILD],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
    env: { NO_COLOR: "1" },
  }).spawn();
  const conns: Deno.TcpConn[] = [];
  const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    const line = await readLine(stdout, { text: "" });
    const port = Number(/^listening (\d+)$/.exec(line)?.[1]);
    assert.ok(port > 0, `The child did not say its port: ${line}`);
    // Warm up the server's paths once, so the baseline holds what a first request loads.
    await memory(port);
    const before = await memory(port);
    conns.push(...await Promise.all(Array.from({ length: CONNECTIONS }, () => trickle(port, BYTES_EACH))));
    const after = await memory(port);
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
  } finally {
    for (const conn of conns) {
      try {
        conn.close();
      } catch {
        // Already closed by the server.
      }
    }
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await stdout.cancel().catch(() => {});
    await child.status;
  }
});
