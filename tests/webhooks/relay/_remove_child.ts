// Removes a relay destination in a process of its own, for the kill test of
// remove_kill_test.ts: opens the KV file named by the first argument, prints
// "ready", then removes the destination named by the second. Each of its KV
// commits prints "commit N" once it has landed; with a third argument H, the
// commit after the H-th waits until the process is killed, so the test kills
// it (SIGKILL) between two of the commits of the removal.

import { createRelay } from "../../../webhooks/mod.ts";
import { holdCommits } from "./_held_commits.ts";

const [path, id, hold] = Deno.args;
const kv = await Deno.openKv(path);
holdCommits(kv, Number(hold));
const relay = createRelay(kv);
console.log("ready");
console.log(`removed ${await relay.destinations.remove(id)}`);
await relay.close();
kv.close();
