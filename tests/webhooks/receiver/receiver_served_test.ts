// handle(request, info) through a real Deno.serve on 127.0.0.1: a body that
// declares its length within maxBytes is read in one native call (Deno.serve
// ends it at that length), and keeps every answer of the streamed path: 200,
// 408 past the deadline (while others are served), 400 for a body cut short.
// A request built in-process is read as a stream whatever it declares, so a
// Content-Length that lies cannot lift maxBytes.

import assert from "node:assert/strict";
import fc from "fast-check";
import { countedStream, item, NOW, post, signA, withReceiver } from "../_receiver.ts";
import type { Receiver } from "../../../webhooks/mod.ts";

const encoder = new TextEncoder();

/** Serves `receiver.handle` as Deno.serve hands it requests (with their info). */
async function served(receiver: Receiver, fn: (port: number) => Promise<void>): Promise<void> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, receiver.handle);
  try {
    await fn(server.addr.port);
  } finally {
    await server.shutdown();
  }
}

/** Opens a raw POST /hooks declaring `declared` body bytes and sends `sent` of them. */
async function rawPost(port: number, authorization: string, declared: number, sent: string): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  conn.setNoDelay(true);
  await conn.write(encoder.encode(
    `POST /hooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: ${authorization}\r\n` +
      `Content-Length: ${declared}\r\nConnection: close\r\n\r\n${sent}`,
  ));
  return conn;
}

/** The status line of the answer on `conn`. */
async function statusLine(conn: Deno.TcpConn): Promise<string> {
  const buffer = new Uint8Array(4096);
  let text = "";
  while (!text.includes("\r\n")) {
    const n = await conn.read(buffer);
    if (n === null) break;
    text += new TextDecoder().decode(buffer.subarray(0, n));
  }
  return text.split("\r\n")[0];
}

Deno.test("a served postback of declared length is read whole and delivered, its body reported", async () => {
  await withReceiver(async ({ receiver, delivered, attempts }) => {
    await served(receiver, async (port) => {
      const body = JSON.stringify([item(), item()]);
      const res = await fetch(`http://127.0.0.1:${port}/hooks`, {
        method: "POST",
        headers: { authorization: await signA(), "content-type": "application/json" },
        body,
      });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { received: 2 });
    });
    assert.equal(delivered.length, 2);
    assert.equal(attempts[0].bodyExcerpt, JSON.stringify([item(), item()]));
  });
});

Deno.test("a served body of declared length that does not arrive in time is answered 408, others served meanwhile", async () => {
  await withReceiver(async ({ receiver, delivered, attempts }) => {
    await served(receiver, async (port) => {
      const started = performance.now();
      const conn = await rawPost(port, await signA(NOW - 1), 200, '[{"webhook":');
      try {
        // A postback that arrives whole is answered while the slow one waits.
        const fast = await fetch(`http://127.0.0.1:${port}/hooks`, {
          method: "POST",
          headers: { authorization: await signA(NOW - 2) },
          body: JSON.stringify([item()]),
        });
        assert.equal(fast.status, 200);
        await fast.body?.cancel();
        assert.equal(await statusLine(conn), "HTTP/1.1 408 Request Timeout");
        const waited = performance.now() - started;
        assert.ok(waited >= 195 && waited < 3_000, `answered after ${waited.toFixed(0)} ms`);
      } finally {
        conn.close();
      }
    });
    assert.equal(delivered.length, 1);
    const late = attempts.find((attempt) => attempt.status === 408);
    assert.equal(late?.reason, "Request timeout: the body did not arrive within 200 ms");
  }, { bodyTimeoutMs: 200 });
});

Deno.test("a served body that ends before its declared length is refused 400 and hands nothing on", async () => {
  await withReceiver(async ({ receiver, delivered, attempts }) => {
    await served(receiver, async (port) => {
      const conn = await rawPost(port, await signA(), 500, JSON.stringify([item()]));
      try {
        await conn.closeWrite(); // the client is done sending, short of what it declared
        assert.equal(await statusLine(conn), "HTTP/1.1 400 Bad Request");
      } finally {
        conn.close();
      }
    });
    assert.equal(delivered.length, 0);
    assert.equal(attempts[0].status, 400);
  });
});

Deno.test("a request built in-process is read as a stream: a Content-Length that lies cannot lift maxBytes", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    const chunk = 1000;
    const endless = countedStream(Infinity, chunk);
    const res = await receiver.handle(post({ authorization: await signA(), "content-length": "10" }, endless.stream));
    assert.equal(res.status, 413);
    await res.body?.cancel();
    assert.ok(endless.pulled() > 4096 && endless.pulled() <= 4096 + chunk, `pulled ${endless.pulled()}`);
    assert.equal(delivered.length, 0);
  }, { maxBytes: 4096 });
});

Deno.test("a served body is read without making its stream when it declares its length, and as a stream otherwise", async () => {
  await withReceiver(async ({ receiver }) => {
    const streamed: boolean[] = [];
    // The request's own `body` getter, watched: reading it is what makes the stream of a served request.
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request, info) => {
      const getter = Object.getOwnPropertyDescriptor(Request.prototype, "body")!.get!;
      let made = false;
      Object.defineProperty(request, "body", { get: () => (made = true, getter.call(request)) });
      const withInfo = request.headers.get("x-info") !== "none";
      return receiver.handle(request, withInfo ? info : undefined).finally(() => streamed.push(made));
    });
    try {
      const url = `http://127.0.0.1:${server.addr.port}/hooks`;
      const send = async (timestamp: number, body: BodyInit, headers: Record<string, string> = {}) => {
        const res = await fetch(url, {
          method: "POST",
          headers: { authorization: await signA(timestamp), ...headers },
          body,
        });
        assert.equal(res.status, 200);
        await res.body?.cancel();
      };
      await send(NOW - 1, JSON.stringify([item()])); // declared length: read natively
      const chunked = new Blob([JSON.stringify([item()])]).stream(); // sent chunked: no length declared
      await send(NOW - 2, chunked);
      await send(NOW - 3, JSON.stringify([item()]), { "x-info": "none" }); // no info: read as a stream
    } finally {
      await server.shutdown();
    }
    assert.deepEqual(streamed, [false, true, true]);
  });
});

Deno.test("random served bodies of declared length, signed or not, never get a 5xx and never reach onPostback", async () => {
  await withReceiver(async ({ receiver, delivered, attempts }) => {
    await served(receiver, async (port) => {
      let timestamp = NOW - 60_000;
      const body = fc.oneof(
        fc.uint8Array({ maxLength: 3000 }),
        fc.string({ maxLength: 2000 }).map((text) => encoder.encode(text)),
        fc.json({ maxDepth: 4 }).map((text) => encoder.encode(text)),
        // Near a postback: an array of items whose webhook names no hook, or whose activity is not an object.
        fc.array(fc.record({ webhook: fc.string(), activity: fc.anything() }), { maxLength: 5 })
          .map((items) => encoder.encode(JSON.stringify(items))),
      );
      await fc.assert(
        fc.asyncProperty(body, fc.boolean(), async (bytes, signed) => {
          const headers: Record<string, string> = signed ? { authorization: await signA(++timestamp) } : {};
          const res = await fetch(`http://127.0.0.1:${port}/hooks`, { method: "POST", headers, body: bytes });
          const answer = await res.json();
          assert.ok(res.status < 500, `status ${res.status}`);
          // Only an empty array, signed, is taken: a postback of no item.
          if (res.status === 200) assert.equal(answer.received, 0);
        }),
        { numRuns: 150 },
      );
    });
    assert.equal(delivered.length, 0);
    assert.ok(attempts.length >= 150);
  }, { maxBytes: 2048 });
});
