// Enables a relay destination in a process of its own, for the kill test of
// paused_kill_test.ts: opens the KV file named by the first argument, prints
// "ready", then enables the destination named by the second. Each of its KV
// commits waits 20 ms and prints "commit N" once it has landed; with a third
// argument H, the commit after the H-th waits until the process is killed, so
// the test kills it (SIGKILL) between two of the commits that move kept
// entries back however late it acts on the line.

import { createRelay } from "../../../webhooks/mod.ts";
import { holdCommits } from "./_held_commits.ts";

const [path, id, hold] = Deno.args;
const kv = await Deno.openKv(path);
holdCommits(kv, Number(hold), 20);
const relay = createRelay(kv, { allowPrivateNetwork: true });
console.log("ready");
await relay.destinations.update(id, { enabled: true });
console.log("enabled");
await relay.close();
kv.close();
