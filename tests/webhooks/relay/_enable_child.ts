// Enables a relay destination in a process of its own, for the kill test of
// paused_kill_test.ts: opens the KV file named by the first argument, prints
// "ready", then enables the destination named by the second. Each of its KV
// commits waits 20 ms and prints "commit N" once it has landed; with a third
// argument H, the commit after the H-th waits until the process is killed, so
// the test kills it (SIGKILL) between two of the commits that move kept
// entries back however late it acts on the line.

import { createRelay } from "../../../webhooks/mod.ts";

const [path, id, hold] = Deno.args;
const kv = await Deno.openKv(path);
let landed = 0;
const atomic = kv.atomic.bind(kv);
kv.atomic = () => {
  const op = atomic();
  const commit = op.commit.bind(op);
  op.commit = async () => {
    await new Promise((r) => setTimeout(r, landed === Number(hold) ? 600_000 : 20));
    const result = await commit();
    console.log(`commit ${++landed}`);
    return result;
  };
  return op;
};
const relay = createRelay(kv, { allowPrivateNetwork: true });
console.log("ready");
await relay.destinations.update(id, { enabled: true });
console.log("enabled");
await relay.close();
kv.close();
