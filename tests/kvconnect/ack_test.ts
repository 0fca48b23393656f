// The test server's front: an HTTP/2 request that arrives in part is
// acknowledged at once with a PRIORITY frame (kvconnect/_ack.ts), unless the
// server keeps the kernel's delayed acknowledgement; HTTP/1.1 and Deno's own
// client go through it unchanged.
import assert from "node:assert/strict";
import fc from "fast-check";
import { FrameCursor, startKvConnectServer } from "../../kvconnect/mod.ts";
import { frame, PREFACE, readFrames } from "./_h2.ts";
import { TEST_TOKEN } from "./token.ts";

/** Frames the server side sends until its answer's HEADERS on stream 1: [type, stream][]. */
async function framesUntilAnswer(url: string): Promise<[number, number][]> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(url).port) });
  try {
    // POST / with :authority, and no END_STREAM: a body is to follow.
    const block = new Uint8Array([0x83, 0x86, 0x84, 0x41, 9, ...new TextEncoder().encode("127.0.0.1")]);
    const hello = [PREFACE, frame(4, 0, 0, new Uint8Array()), frame(1, 4, 1, block)];
    for (const part of hello) await conn.write(part);
    const seen = await readFrames(conn, (frames) => {
      const [type, , stream] = frames.at(-1)!;
      return type === 1 && stream === 1;
    });
    return seen.map(([type, , stream]) => [type, stream]);
  } finally {
    conn.close();
  }
}

Deno.test("front: a request whose body is still to come is acknowledged at once, before its answer", async () => {
  const server = await startKvConnectServer();
  try {
    const seen = await framesUntilAnswer(server.url);
    const priority = seen.findIndex(([type, stream]) => type === 2 && stream === 1);
    assert.ok(priority >= 0, `no PRIORITY frame for stream 1 in ${JSON.stringify(seen)}`);
    assert.ok(priority < seen.length - 1, "the PRIORITY frame came before the answer");
  } finally {
    await server.close();
  }
});

Deno.test("front: delayedAck sends nothing of its own", async () => {
  const server = await startKvConnectServer({ delayedAck: true });
  try {
    const seen = await framesUntilAnswer(server.url);
    assert.deepEqual(seen.filter(([type]) => type === 2), []);
    assert.deepEqual(seen.at(-1), [1, 1]);
  } finally {
    await server.close();
  }
});

Deno.test("front: Deno's client commits bodies past 1,024 bytes and HTTP/1.1 is relayed, both modes", async () => {
  for (const delayedAck of [false, true]) {
    const server = await startKvConnectServer({ token: TEST_TOKEN, delayedAck }); // the process's one token
    Deno.env.set("DENO_KV_ACCESS_TOKEN", server.token);
    const kv = await Deno.openKv(server.url);
    try {
      for (const size of [100, 1_000, 1_100, 40_000]) {
        const value = "x".repeat(size);
        assert.ok(
          (await kv.atomic().check({ key: ["v", size], versionstamp: null }).set(["v", size], value).commit()).ok,
        );
        assert.equal((await kv.get(["v", size])).value, value);
      }
      const exchange = await fetch(server.url, { method: "POST", body: "{}" });
      assert.equal(exchange.status, 401);
      await exchange.body?.cancel();
    } finally {
      kv.close();
      await server.close();
    }
  }
});

Deno.test("FrameCursor: any split of any frames ends at a boundary, with the last header read", () => {
  const frames = fc.array(
    fc.record({
      type: fc.integer({ min: 0, max: 9 }),
      flags: fc.integer({ min: 0, max: 255 }),
      stream: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      length: fc.integer({ min: 0, max: 300 }),
    }),
    { minLength: 1, maxLength: 8 },
  );
  fc.assert(fc.property(frames, fc.array(fc.nat(), { maxLength: 10 }), (list, cuts) => {
    const bytes = new Uint8Array(
      [PREFACE, ...list.map((f) => frame(f.type, f.flags, f.stream, new Uint8Array(f.length)))].flatMap((b) => [...b]),
    );
    const cursor = new FrameCursor(PREFACE.length);
    const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
    let from = 0;
    for (const to of [...points, bytes.length]) {
      cursor.feed(bytes.subarray(from, to));
      from = to;
    }
    const last = list.at(-1)!;
    assert.ok(cursor.atBoundary);
    assert.deepEqual([cursor.type, cursor.flags, cursor.stream], [last.type, last.flags, last.stream]);
    // One byte short of the end is inside the last frame (or its header).
    const short = new FrameCursor(PREFACE.length);
    short.feed(bytes.subarray(0, bytes.length - 1));
    assert.ok(!short.atBoundary && short.midRequest);
  }));
});

Deno.test("FrameCursor.toFrameEnd: taken from any split, the server's frames end exactly where toFrameEnd stops", () => {
  const lengths = fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 8 });
  fc.assert(fc.property(lengths, fc.array(fc.nat(), { maxLength: 10 }), (list, cuts) => {
    const frames = list.map((length, i) => frame(0, 0, 2 * i + 1, new Uint8Array(length)));
    const bytes = new Uint8Array(frames.flatMap((f) => [...f]));
    const ends = frames.map((_, i) => frames.slice(0, i + 1).reduce((sum, f) => sum + f.length, 0));
    const cursor = new FrameCursor();
    const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
    const stops: number[] = [];
    let from = 0;
    for (const to of [...points, bytes.length]) {
      for (let at = from; at < to;) {
        at += cursor.toFrameEnd(bytes.subarray(at, to));
        if (cursor.atBoundary) stops.push(at);
      }
      from = to;
    }
    assert.deepEqual(stops, ends);
  }));
});
