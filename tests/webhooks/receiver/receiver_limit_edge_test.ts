// API.md: `413` "when the body exceeds `maxBytes`" (default 1 MiB). A body of
// exactly the limit is not over it: taken in-process and served alike.

import assert from "node:assert/strict";
import { item, NOW, post, signA, withReceiver } from "../_receiver.ts";

const MiB = 1024 * 1024;

/** A one-item postback padded with spaces (still JSON) to `bytes`. */
function padded(bytes: number): string {
  const json = JSON.stringify([item()]);
  return json + " ".repeat(bytes - json.length);
}

Deno.test("handle() takes a body of exactly maxBytes (default 1 MiB) and answers one byte more 413", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, receiver.handle);
    try {
      const url = `http://127.0.0.1:${server.addr.port}/hooks`;
      const cases: [number, number, number][] = [[MiB, NOW, 200], [MiB + 1, NOW - 1, 413]];
      for (const [bytes, timestamp, status] of cases) {
        const inProcess = await receiver.handle(post({ authorization: await signA(timestamp) }, padded(bytes)));
        await inProcess.body?.cancel();
        assert.equal(inProcess.status, status, `${bytes} bytes in-process`);
        const served = await fetch(url, {
          method: "POST",
          headers: { authorization: await signA(timestamp - 10) },
          body: padded(bytes),
        });
        await served.body?.cancel();
        assert.equal(served.status, status, `${bytes} bytes served`);
      }
      assert.equal(delivered.length, 2);
    } finally {
      await server.shutdown();
    }
  });
});
