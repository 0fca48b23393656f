// Run by renewal_processes_test.ts and renewal_processes_hostile_test.ts as a
// child process: opens the shared KV (a file, or a KV Connect URL with its
// token), prints "ready", waits for "go" on stdin, then runs `count` platform
// operations at once with the community's stored tokens and prints
// "done <what>" or "failed <message>". `skewMs` moves its clock (Date.now).

const { kvPath, kvToken, op, callback, timeout, count = 1, skewMs = 0 }: Args = JSON.parse(Deno.args[0]);
if (skewMs) {
  const realNow = Date.now;
  Date.now = () => realNow() + skewMs;
}
// Imported once the clock is set.
const { createWebhooks } = await import("../../../webhooks/mod.ts");

interface Args {
  kvPath: string;
  kvToken?: string;
  op: "register" | "reconcile";
  callback: string;
  timeout: number;
  count?: number;
  skewMs?: number;
}

if (kvToken) Deno.env.set("DENO_KV_ACCESS_TOKEN", kvToken);
const kv = await Deno.openKv(kvPath);
const hooks = createWebhooks(kv, { timeout });
console.log("ready");

let input = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  input += chunk;
  if (input.includes("go\n")) break;
}

async function once(i: number): Promise<string> {
  if (op === "register") {
    const place = "https://c.example/api/core/v3/places/42";
    const response = await hooks.register("Acme", ["document"], place, count > 1 ? `${callback}/${i}` : callback);
    return `registered ${response.entity.id}`;
  }
  const report = await hooks.reconcile({ tenantId: "tenant-acme" });
  return `reconciled ${report.orphans.length + report.dangling.length + report.matched.length}`;
}

const results = await Promise.allSettled(Array.from({ length: count }, (_, i) => once(i)));
const failures = results.flatMap((r) =>
  r.status === "rejected" ? [r.reason instanceof Error ? r.reason.message : String(r.reason)] : []
);
console.log(
  failures.length
    ? `failed ${failures.join(" | ")}`
    : `done ${results.map((r) => (r as PromiseFulfilledResult<string>).value).join(", ")}`,
);
kv.close();
