// What a client meets through the test server's front (kvconnect/_front.ts),
// spoken over raw sockets: HTTP/1.1 goes through as it is, and the front's own
// PRIORITY frames name only streams the client opened.
import assert from "node:assert/strict";
import { startKvConnectServer } from "../../kvconnect/mod.ts";
import { frame, PREFACE, readFrames } from "./_h2.ts";

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

Deno.test("front: a client preface cut short, then the end of the client's writes, is answered as Deno.serve does", async () => {
  const server = await startKvConnectServer();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: port(server.url) });
  try {
    await conn.write(PREFACE.subarray(0, 18));
    await conn.closeWrite();
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(4096);
    for (let n; (n = await conn.read(buffer)) !== null;) chunks.push(buffer.slice(0, n));
    const answer = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
    // Deno.serve takes the 18 bytes for an HTTP/1.1 request line it cannot parse.
    assert.match(answer, /^HTTP\/1\.1 400 /, JSON.stringify(answer.slice(0, 40)));
  } finally {
    conn.close();
    await server.close();
  }
});

/** Frames read until the server's PING acknowledgement, `onSettings` run once its SETTINGS came: [type, flags, stream][]. */
async function framesUntilPingAck(conn: Deno.Conn, onSettings: () => Promise<void>): Promise<number[][]> {
  let settled = false;
  return await readFrames(conn, async (seen) => {
    const [type, flags] = seen.at(-1)!;
    if (!settled && type === 4) settled = true, await onSettings();
    return type === 6 && (flags & 1) === 1;
  });
}

Deno.test("front: a PRIORITY frame of the client's, in part, on a stream it never opened is not echoed", async () => {
  const server = await startKvConnectServer();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: port(server.url) });
  try {
    // A PRIORITY frame on idle stream 7 is allowed (RFC 9113 5.1) and opens nothing; its first 11 bytes go first.
    const priority = frame(2, 0, 7, new Uint8Array([0, 0, 0, 0, 15]));
    await conn.write(new Uint8Array([...PREFACE, ...frame(4, 0, 0, new Uint8Array()), ...priority.subarray(0, 11)]));
    const seen = await framesUntilPingAck(conn, async () => {
      await conn.write(new Uint8Array([...priority.subarray(11), ...frame(6, 0, 0, new Uint8Array(8))]));
    });
    assert.ok(seen.some(([type, flags]) => type === 6 && flags === 1), `no PING answer in ${JSON.stringify(seen)}`);
    const named = seen.filter(([type]) => type === 2).map(([, , stream]) => stream);
    assert.deepEqual(named, [], "the front sent PRIORITY for streams the client did not open");
  } finally {
    conn.close();
    await server.close();
  }
});

Deno.test("front: the server's SETTINGS frame comes first, even when a request arrives in part at once", async () => {
  const server = await startKvConnectServer();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: port(server.url) });
  try {
    // POST / without END_STREAM (its body is to follow), in one write with the preface (RFC 9113 3.4).
    const block = new Uint8Array([0x83, 0x86, 0x84, 0x41, 9, ...new TextEncoder().encode("127.0.0.1")]);
    await conn.write(new Uint8Array([...PREFACE, ...frame(4, 0, 0, new Uint8Array()), ...frame(1, 4, 1, block)]));
    const seen = await framesUntilPingAck(conn, async () => {
      await conn.write(frame(6, 0, 0, new Uint8Array(8)));
    });
    assert.deepEqual(seen[0]?.slice(0, 2), [4, 0], `the first frames: ${JSON.stringify(seen)}`);
    assert.ok(seen.some(([type, , stream]) => type === 2 && stream === 1), "stream 1 is still acknowledged");
  } finally {
    conn.close();
    await server.close();
  }
});

Deno.test("startKvConnectServer: a delayedAck that is not a boolean is refused, naming it and the value", async () => {
  // "false" read from a flag or an env is truthy: taken as given, it kept the delayed acknowledgement it meant to drop.
  for (const delayedAck of ["false", 1, "yes"]) {
    const outcome = await startKvConnectServer({ delayedAck: delayedAck as unknown as boolean }).then(
      async (server) => (await server.close(), "started"),
      (error) => error,
    );
    assert.ok(outcome instanceof TypeError, `${JSON.stringify(delayedAck)}: ${outcome}`);
    const expected = `Cannot start the KV Connect server: 'delayedAck' must be true or false, got ${
      JSON.stringify(delayedAck)
    }`;
    assert.equal(outcome.message, expected);
  }
});
