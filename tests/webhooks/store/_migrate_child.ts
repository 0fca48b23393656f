// Runs migrate() on the KV file named by the first argument and prints each
// progress report as one JSON line: the kill-mid-migration test kills it.

import { createWebhooks } from "../../../webhooks/mod.ts";

const kv = await Deno.openKv(Deno.args[0]);
const report = await createWebhooks(kv).migrate({ onProgress: (p) => console.log(JSON.stringify(p)) });
console.log(JSON.stringify({ done: report }));
kv.close();
