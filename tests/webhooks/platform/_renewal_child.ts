// Run by renewal_processes_test.ts as a child process: opens the shared KV (a
// file, or a KV Connect URL with its token), prints "ready", waits for "go"
// on stdin, then runs one platform operation with the community's stored
// tokens and prints "done <what>" or "failed <message>".

import { createWebhooks } from "../../../webhooks/mod.ts";

interface Args {
  kvPath: string;
  kvToken?: string;
  op: "register" | "reconcile";
  callback: string;
  timeout: number;
}

const { kvPath, kvToken, op, callback, timeout }: Args = JSON.parse(Deno.args[0]);
if (kvToken) Deno.env.set("DENO_KV_ACCESS_TOKEN", kvToken);
const kv = await Deno.openKv(kvPath);
const hooks = createWebhooks(kv, { timeout });
console.log("ready");

let input = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  input += chunk;
  if (input.includes("go\n")) break;
}

try {
  if (op === "register") {
    const response = await hooks.register("Acme", ["document"], "https://c.example/api/core/v3/places/42", callback);
    console.log(`done registered ${response.entity.id}`);
  } else {
    const report = await hooks.reconcile({ tenantId: "tenant-acme" });
    console.log(`done reconciled ${report.orphans.length + report.dangling.length + report.matched.length}`);
  }
} catch (error) {
  console.log(`failed ${error instanceof Error ? error.message : String(error)}`);
}
kv.close();
