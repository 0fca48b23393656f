// A relay worker in its own process whose clock can be stepped, for the tests
// of workers that sleep (SIGSTOP), wake late, or see the wall clock jump:
// opens the KV named by the first argument (a file or a KV Connect URL), runs
// one worker with the concurrency, lease and attempt time given, prints
// "ready" and one line "attempt <entry id> <status>" per attempt, steps its
// clock on a line "offset <ms>", and stops on a line "stop" (then "stopped").

import { createRelay } from "../../../webhooks/mod.ts";

const [path, concurrency = "4", leaseMs = "1500", attemptTimeoutMs = "1000", schedule = "100"] = Deno.args;
const kv = await Deno.openKv(path);
let offset = 0;
const relay = createRelay(kv, {
  allowPrivateNetwork: true,
  leaseMs: Number(leaseMs),
  attemptTimeoutMs: Number(attemptTimeoutMs),
  schedule: schedule.split(",").map(Number),
  pollMs: 100,
  now: () => Date.now() + offset,
});
const worker = relay.run({
  concurrency: Number(concurrency),
  onAttempt: (attempt) => console.log(`attempt ${attempt.entryId} ${attempt.status}`),
});
console.log("ready");
for await (const line of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  for (const command of line.split("\n")) {
    const step = /^offset (-?\d+)$/.exec(command.trim());
    if (step) {
      offset = Number(step[1]);
      console.log(`offset ${offset}`);
    }
  }
  if (line.includes("stop")) break;
}
await worker.stop();
await relay.close();
kv.close();
console.log("stopped");
