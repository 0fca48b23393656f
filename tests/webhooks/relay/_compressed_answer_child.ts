// Child of compressed_answer_test.ts, so that the peak resident size it reads
// is its own: under `deno test --parallel` every test module runs in one
// process, and another module's allocations would count. A destination
// answers 500 with a few KiB of brotli that inflate to 256 MiB, then 60 KiB
// of gzip that inflate to 60 MiB; for each, one postback is relayed to it and
// the child prints one JSON line: the way, the bytes sent, the attempt's
// status, the bytes of the response kept, and how much the peak resident size
// (VmHWM, reset through /proc/self/clear_refs just before) grew.

import { brotliCompressSync, gzipSync } from "node:zlib";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const INFLATED = 256 * 1024 * 1024;
const MIB = 1024 * 1024;

/** The peak resident size of this process since the last reset, in bytes. */
function peakBytes(): number {
  return Number(/VmHWM:\s+(\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))![1]) * 1024;
}

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
    Deno.writeTextFileSync("/proc/self/clear_refs", "5");
    const before = peakBytes();
    await writeAll(kv, relay.write, [postback("h1", i)]);
    await app.waitFor(i + 1);
    const id = app.received[i].id;
    let attempts = await relay.attempts(id);
    await until(async () => (attempts = await relay.attempts(id)).length === 1, 20_000, "the attempt");
    const grown = peakBytes() - before;
    const kept = new TextEncoder().encode(attempts[0].response ?? "").length;
    console.log(JSON.stringify({ way, sent: bodies[way].byteLength, status: attempts[0].status, kept, grown }));
  }
} finally {
  await worker.stop();
  await relay.close();
  await app.close();
  kv.close();
}
