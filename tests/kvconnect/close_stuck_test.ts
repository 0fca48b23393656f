// Closing the server while a client is stuck mid-request: it sent part of a request's headers or body and then
// nothing, over HTTP/1.1 or HTTP/2, and holds the connection open. close() must end within its grace and cut the
// connection, or a test harness (or an operator's Ctrl-C on `deno task kvconnect`) waits for good. Raw clients on
// Deno.connect; the 10 s bound is generous, not a timing test.
import assert from "node:assert/strict";
import { startKvConnectServer } from "../../kvconnect/mod.ts";
import { frame, PREFACE } from "./_h2.ts";

const text = (s: string) => new TextEncoder().encode(s);

/** Opens a raw connection to `url`, writes `parts`, then holds the connection and sends nothing more. */
async function stuckClient(url: string, parts: Uint8Array[]): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(url).port) });
  for (const part of parts) await conn.write(part);
  return conn;
}

/** Whether close() resolved within 10 s, the client's connection ended (read() gives null or fails) after. */
async function closesDespite(parts: Uint8Array[]): Promise<void> {
  const server = await startKvConnectServer();
  const conn = await stuckClient(server.url, parts);
  await new Promise((r) => setTimeout(r, 200)); // the server holds the request part
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    server.close().then(() => "closed"),
    new Promise((r) => timer = setTimeout(() => r("still waiting after 10 s"), 10_000)),
  ]);
  clearTimeout(timer);
  try {
    assert.equal(outcome, "closed");
    // The stuck connection is cut, not left open: reading ends.
    const buffer = new Uint8Array(4096);
    let ended = false;
    try {
      while (await conn.read(buffer) !== null);
      ended = true;
    } catch {
      ended = true;
    }
    assert.ok(ended);
  } finally {
    try {
      conn.close();
    } catch { /* already closed */ }
  }
}

Deno.test("close: an HTTP/1.1 client that sent half its headers does not hold close() for good", async () => {
  await closesDespite([text("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: app")]);
});

Deno.test("close: an HTTP/1.1 client that sent half its body does not hold close() for good", async () => {
  await closesDespite([
    text('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sup'),
  ]);
});

Deno.test("close: an HTTP/2 client that opened a stream and sent half its body does not hold close() for good", async () => {
  // HEADERS (END_HEADERS, no END_STREAM) of POST http://127.0.0.1/ in HPACK without Huffman: :method POST (index 3),
  // :scheme http (6), :path / (4), :authority 127.0.0.1 (literal, name index 1); then a DATA frame, the body unended.
  const authority = text("127.0.0.1");
  const headers = new Uint8Array([0x83, 0x86, 0x84, 0x41, authority.length, ...authority]);
  await closesDespite([
    PREFACE,
    frame(4, 0, 0, new Uint8Array()), // SETTINGS
    frame(1, 4, 1, headers),
    frame(0, 0, 1, text('{"sup')),
  ]);
});

Deno.test("close: an HTTP/2 client that sent only half its preface does not hold close() for good", async () => {
  await closesDespite([PREFACE.subarray(0, 10)]);
});
