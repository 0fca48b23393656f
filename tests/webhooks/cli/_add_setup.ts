// What the tests of `communities add` share: two client secrets, `main` run in
// process on a KV, the community stored there, and a KV file in a temp folder.

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli/mod.ts";
import { type Community, createWebhooks } from "../../../webhooks/mod.ts";

/** A client secret of community A (base64 of 32 bytes). */
export const SECRET = btoa("community A's first secret, 32 b");
/** Another client secret of community A. */
export const SECOND = btoa("community A's second secret, 32b");

/** A run of `main`: its status, stdout and stderr. */
export interface MainRun {
  code: number;
  out: string;
  err: string;
}

/**
 * Runs `main` on the KV at `kv` (a path or URL) with `env`; resolves with its status, stdout and stderr, after
 * asserting that none of `secrets` was printed.
 */
export async function runAdd(
  kv: string,
  argv: string[],
  env: Record<string, string> = {},
  secrets: string[] = [],
): Promise<MainRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main([...argv, "--kv", kv], {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env: (name) => env[name],
  });
  const result = { code, out: out.join("\n"), err: err.join("\n") };
  for (const secret of secrets) assert.ok(!(result.out + result.err).includes(secret), "a secret was printed");
  return result;
}

/** The stored community of `tenantId` in the KV at `path`. */
export async function storedCommunity(path: string, tenantId: string): Promise<Community | null> {
  const kv = await Deno.openKv(path);
  try {
    return await createWebhooks(kv).communities.findByTenantID(tenantId);
  } finally {
    kv.close();
  }
}

/** Runs `fn` with the path of a KV file in a new temp folder (prefix `prefix`), removed after. */
export async function withKvFile(prefix: string, fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix });
  try {
    await fn(`${dir}/webhooks.kv`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
