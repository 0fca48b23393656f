// A relay worker in its own process, for the process tests: opens the KV
// named by the first argument (a file or a KV Connect URL), runs one worker
// with the concurrency and lease given, prints "ready", and runs until killed
// or until a line "stop" arrives on stdin.

import { createRelay } from "../../../webhooks/mod.ts";

const [path, concurrency = "16", leaseMs = "30000"] = Deno.args;
const kv = await Deno.openKv(path);
const relay = createRelay(kv, {
  allowPrivateNetwork: true,
  leaseMs: Number(leaseMs),
  attemptTimeoutMs: Math.min(15_000, Number(leaseMs) - 500),
  pollMs: 100,
});
const worker = relay.run({ concurrency: Number(concurrency) });
console.log("ready");
for await (const line of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  if (line.includes("stop")) break;
}
await worker.stop();
await relay.close();
kv.close();
console.log("stopped");
