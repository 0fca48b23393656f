// A writer of the delivery log as a process of its own (tests/console/log/log_processes_test.ts): opens the KV
// file `Deno.args[0]`, keeps `Deno.args[1]` rows, and stores one-item postbacks of hooks h1 and h2, one at a
// time, until it is killed; it prints "ready" once its first is stored.

import { DeliveryStore } from "../../../console/log/mod.ts";

const [path, retain, tag] = Deno.args;
const kv = await Deno.openKv(path);
const store = new DeliveryStore(kv, { retain: Number(retain) });
let n = 0;
let told = false;
await Promise.all(Array.from({ length: 1 }, async () => {
  for (;;) {
    const i = n++;
    await store.add(i % 3 === 0 ? "h2" : "h1", [{ activity: { verb: "jive:created", title: `${tag} ${i}` } }]);
    if (!told) told = true, console.log("ready");
    await new Promise((r) => setTimeout(r, 20));
  }
}));
