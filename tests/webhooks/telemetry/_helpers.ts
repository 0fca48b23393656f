// Helpers of the telemetry tests: a receiver to post to in this process, and
// a child process of these tests run to its end.

import assert from "node:assert/strict";
import { createReceiver, createWebhooks, signJiveExtn } from "../../../webhooks/mod.ts";

const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;

/** A receiver over a fresh KV with one community and hook, and a function that posts one item to it. */
export async function receiving(kv: Deno.Kv): Promise<(signed: boolean) => Promise<number>> {
  const hooks = createWebhooks(kv);
  const secret = btoa("telemetry test secret");
  await hooks.communities.save({
    name: "A",
    tenantId: "t",
    baseUrl: "https://a.example",
    clientId: "c",
    clientSecret: secret,
  });
  const ref = "https://a.example/api/core/v3/webhooks/1";
  await hooks.save({ id: "h", tenantId: "t", entity: { resources: { self: { ref } } } });
  const receiver = createReceiver(hooks, {
    write: (p, atomic) => void atomic.set(["inbox", p.postbackId, p.index], 1),
  });
  return async (signed) => {
    const authorization = signed
      ? await signJiveExtn({ clientId: "c", jiveUrl: "https://a.example", tenantId: "t" }, secret)
      : undefined;
    const res = await receiver.handle(
      new Request("http://localhost/hooks", {
        method: "POST",
        headers: authorization ? { authorization } : {},
        body: JSON.stringify([{ webhook: ref, activity: { verb: "jive:created" } }]),
      }),
    );
    await res.body?.cancel();
    return res.status;
  };
}

/**
 * Runs `script` (a file beside these tests) with the project's deno.json and
 * `args` after it, in `env`; asserts that it exited 0 (its stderr the
 * message) and resolves with what it printed. A child still running after
 * 60 s is killed, and fails the test rather than hanging the suite.
 */
export async function runChild(script: string, env: Record<string, string>, args: string[] = []): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", CONFIG, new URL(script, import.meta.url).pathname, ...args],
    env,
    signal: AbortSignal.timeout(60_000),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

/** Stores community Acme (tenant `tenant-acme`, client `client-1`, `secret`) and its hook `h7` at `ref` in the KV file at `kvPath`. */
export async function seedAcmeFile(kvPath: string, secret: string, ref: string): Promise<void> {
  const kv = await Deno.openKv(kvPath);
  try {
    const hooks = createWebhooks(kv);
    await hooks.communities.save({
      name: "Acme",
      tenantId: "tenant-acme",
      baseUrl: "https://acme.example",
      clientId: "client-1",
      clientSecret: secret,
    });
    await hooks.save({ id: "h7", tenantId: "tenant-acme", entity: { resources: { self: { ref } } } });
  } finally {
    kv.close();
  }
}
