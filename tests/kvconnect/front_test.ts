// What a client meets through the test server's front (kvconnect/_front.ts),
// spoken over raw sockets: HTTP/1.1 goes through as it is.
import assert from "node:assert/strict";
import { startKvConnectServer } from "../../kvconnect/mod.ts";

function port(url: string): number {
  return Number(new URL(url).port);
}

/** Sends `request` whole and reads the answer until the server closes. */
async function exchange(url: string, request: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: port(url) });
  try {
    await conn.write(new TextEncoder().encode(request));
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(4096);
    for (let n; (n = await conn.read(buffer)) !== null;) chunks.push(buffer.slice(0, n));
    return new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
  } finally {
    conn.close();
  }
}

Deno.test("front: an HTTP/1.1 method that starts with PRI is relayed as it is, both modes", async () => {
  for (const delayedAck of [false, true]) {
    const server = await startKvConnectServer({ delayedAck });
    try {
      const request = "PRIVATE / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      const answer = await exchange(server.url, request);
      assert.match(answer, /^HTTP\/1\.1 404 /, `delayedAck ${delayedAck}: ${JSON.stringify(answer.slice(0, 40))}`);
      const fetched = await fetch(server.url, { method: "PRIZE", body: "x".repeat(3000) });
      assert.equal(fetched.status, 404);
      await fetched.body?.cancel();
    } finally {
      await server.close();
    }
  }
});
