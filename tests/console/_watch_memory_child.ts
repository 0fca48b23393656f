// Child of watch_memory_test.ts: watches a quiet `:memory:` KV through
// DeliveryStore.watch() with a poll of 0 ms, and prints the heap plus external
// bytes after a full GC at poll 100 and at the last poll (the first argument),
// as `growth <bytes>`. Run with --v8-flags=--expose-gc.

import { DeliveryStore } from "../../console/log/mod.ts";
import { measuredBytes } from "../_memory.ts";

// Fails at once without --expose-gc, before anything is served.
measuredBytes();

const polls = Number(Deno.args[0]);
const kv = await Deno.openKv(":memory:");
const store = new DeliveryStore(kv);
const abort = new AbortController();
let calls = 0;
let before = 0;
await store.watch(abort.signal, () => {
  calls++;
  if (calls === 100) before = measuredBytes();
  if (calls === polls) {
    console.log(`growth ${measuredBytes() - before}`);
    abort.abort();
  }
  return Promise.resolve();
}, 0);
kv.close();
