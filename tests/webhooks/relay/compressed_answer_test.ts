// API.md: relay.attempts() keeps "the first 1 KiB of the response", and a
// hostile destination must not grow a worker's memory. Deno's fetch asks for
// gzip and br and inflates what comes back, while `content-length` still
// tells the compressed size: a few hundred bytes of brotli that inflate to
// 256 MiB, or 60 KiB of gzip that inflate to 60 MiB, pass for a small body.
// The growth is read from the process's peak resident size (VmHWM, reset
// through /proc/self/clear_refs), since the inflated copy is garbage once
// the attempt ends.

import assert from "node:assert/strict";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const INFLATED = 256 * 1024 * 1024;
const MIB = 1024 * 1024;

/** The peak resident size of this process since the last reset, in bytes. */
function peakBytes(): number {
  return Number(/VmHWM:\s+(\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))![1]) * 1024;
}

Deno.test("an answer of a few KiB compressed that inflates to 60 or 256 MiB is read to 1 KiB, not inflated whole", async () => {
  const plain = new Uint8Array(INFLATED).fill(97);
  const bodies = {
    br: new Uint8Array(brotliCompressSync(plain)),
    gzip: new Uint8Array(gzipSync(plain.subarray(0, 60 * MIB))),
  };
  const kv = await Deno.openKv(":memory:");
  let encoding: keyof typeof bodies = "br";
  const app = startApp(() =>
    new Response(bodies[encoding], {
      status: 500,
      headers: { "content-encoding": encoding, "content-length": String(bodies[encoding].byteLength) },
    })
  );
  const relay = createRelay(kv, { allowPrivateNetwork: true, attemptTimeoutMs: 10_000, leaseMs: 20_000 });
  const worker = relay.run();
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: app.url });
    for (const [i, way] of (["br", "gzip"] as const).entries()) {
      encoding = way;
      assert.ok(bodies[way].byteLength <= 64 * 1024, `${way}: ${bodies[way].byteLength} bytes sent`);
      Deno.writeTextFileSync("/proc/self/clear_refs", "5");
      const before = peakBytes();
      await writeAll(kv, relay.write, [postback("h1", i)]);
      await app.waitFor(i + 1);
      const id = app.received[i].id;
      let attempts = await relay.attempts(id);
      await until(async () => (attempts = await relay.attempts(id)).length === 1, 20_000, "the attempt");
      const grown = peakBytes() - before;
      assert.equal(attempts[0].status, 500, way);
      assert.ok(new TextEncoder().encode(attempts[0].response ?? "").length <= 1_024, `${way}: at most 1 KiB kept`);
      assert.ok(grown < 32 * MIB, `${way}: the peak resident size grew ${Math.round(grown / MIB)} MiB`);
    }
  } finally {
    await worker.stop();
    await relay.close();
    await app.close();
    kv.close();
  }
});
