// createReceiver(): the body's size and arrival time, as API.md's "Receiving
// postbacks" orders them: 413 from Content-Length or a body past maxBytes, read
// at most one chunk too far, and 408 for a body later than bodyTimeoutMs.

import assert from "node:assert/strict";
import { countedStream, item, NOW, post, signA, withReceiver } from "../_receiver.ts";

const MiB = 1024 * 1024;

Deno.test("handle() answers 413 from Content-Length alone, signed or not, before reading, and cancels the body", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    for (const headers of [{}, { authorization: await signA() }] as Record<string, string>[]) {
      const { stream, pulled, cancelled } = countedStream(Infinity);
      const res = await receiver.handle(post({ ...headers, "content-length": String(MiB + 1) }, stream));
      assert.equal(res.status, 413);
      assert.deepEqual(await res.json(), { error: `Payload too large: the limit is ${MiB} bytes` });
      assert.equal(pulled(), 0);
      assert.ok(cancelled(), "the upload is stopped");
    }
    assert.equal(delivered.length, 0);
  });
});

Deno.test("handle() answers 413 to a streamed 50 MB body, reading at most maxBytes plus one chunk", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    const chunk = 64 * 1024;
    const { stream, pulled } = countedStream(50 * MiB, chunk);
    const res = await receiver.handle(post({ authorization: await signA() }, stream));
    assert.equal(res.status, 413);
    assert.deepEqual(await res.json(), { error: `Payload too large: the limit is ${MiB} bytes` });
    assert.ok(pulled() <= MiB + chunk, `pulled ${pulled()}`);
    assert.equal(delivered.length, 0);
  });
});

Deno.test("handle() answers an endless body 413, signed or not, reading at most maxBytes plus one chunk", async () => {
  await withReceiver(async ({ receiver }) => {
    const chunk = 1000;
    const cases: Record<string, string>[] = [{ authorization: await signA() }, {}, { authorization: "JiveEXTN ???" }];
    for (const headers of cases) {
      const endless = countedStream(Infinity, chunk);
      const res = await receiver.handle(post(headers, endless.stream));
      assert.equal(res.status, 413, JSON.stringify(headers));
      await res.body?.cancel();
      assert.ok(endless.pulled() > 4096 && endless.pulled() <= 4096 + chunk, `pulled ${endless.pulled()}`);
    }
  }, { maxBytes: 4096 });
});

Deno.test("handle() answers 408 to a body that does not arrive within bodyTimeoutMs", async () => {
  await withReceiver(async ({ receiver, delivered, attempts }) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let cancelled = false;
    const trickle = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('[{"webhook":'));
      },
      pull: () => new Promise((resolve) => timer = setTimeout(resolve, 10_000)),
      cancel() {
        cancelled = true;
      },
    });
    try {
      const started = performance.now();
      const res = await receiver.handle(post({ authorization: await signA() }, trickle));
      assert.equal(res.status, 408);
      assert.deepEqual(await res.json(), { error: "Request timeout: the body did not arrive within 100 ms" });
      assert.ok(performance.now() - started < 5_000);
      assert.ok(cancelled);
      assert.equal(delivered.length, 0);
      assert.equal(attempts[0].bodyExcerpt, '[{"webhook":');
    } finally {
      clearTimeout(timer);
    }
  }, { bodyTimeoutMs: 100 });
});

Deno.test("handle(): each slow body is cut off at its own deadline, while bodies that arrive are served meanwhile", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    const timers: ReturnType<typeof setTimeout>[] = [];
    const slow = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("["));
        },
        pull: () => new Promise((resolve) => timers.push(setTimeout(resolve, 10_000))),
      });
    try {
      const lasted: number[] = [];
      const slowOnes: Promise<void>[] = [];
      for (let i = 0; i < 3; i++) {
        // Started 80 ms apart: each ends 200 ms after its own start, not at the first one's deadline.
        const authorization = await signA(NOW - i);
        const started = performance.now();
        slowOnes.push(
          receiver.handle(post({ authorization }, slow())).then(async (res) => {
            assert.equal(res.status, 408);
            await res.body?.cancel();
            lasted[i] = performance.now() - started;
          }),
        );
        const fast = await receiver.handle(
          post({ authorization: await signA(NOW - 10 - i) }, JSON.stringify([item()])),
        );
        assert.equal(fast.status, 200);
        await fast.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 80));
      }
      await Promise.all(slowOnes);
      assert.equal(delivered.length, 3, "the bodies that arrived were delivered while the slow ones waited");
      for (const [i, ms] of lasted.entries()) {
        assert.ok(ms >= 195 && ms < 2_000, `slow body ${i} was cut off after ${ms.toFixed(0)} ms`);
      }
    } finally {
      timers.forEach(clearTimeout);
    }
  }, { bodyTimeoutMs: 200 });
});
