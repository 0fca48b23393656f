/**
 * The access token for a KV Connect server that a process starts and opens
 * itself. `Deno.openKv(url)` reads `DENO_KV_ACCESS_TOKEN` from `Deno.env`,
 * which is one per process: every module shares it, and so does every test
 * module of a `deno test --parallel` run. A module that set another token
 * there, even for a moment, would fail another's open with 401.
 *
 * @module
 */

import { tokenProblem } from "./_serve.ts";

/** The token to start a server with, and how to leave `DENO_KV_ACCESS_TOKEN` as it was found. */
export interface ProcessKvToken {
  /** The token: the process's own when it had a usable one, else the one given. */
  token: string;
  /** Takes away the token this call set; does nothing when the process's own was taken. */
  restore(): void;
}

/**
 * The token a server this process starts should take: `DENO_KV_ACCESS_TOKEN`
 * when it holds one a server accepts (12 printable ASCII characters or
 * more), the variable then left alone; else `own`, set there until
 * {@linkcode ProcessKvToken.restore}.
 *
 * @param own the token to use when the process has none (at least 12 printable ASCII characters)
 * @returns the token and its `restore()`
 *
 * @example
 * ```ts
 * import { processKvToken, startKvConnectServer } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const { token, restore } = processKvToken("kvconnect-example-token");
 * const server = await startKvConnectServer({ token });
 * const kv = await Deno.openKv(server.url);
 * try {
 *   assert.equal(Deno.env.get("DENO_KV_ACCESS_TOKEN"), token);
 *   await kv.set(["greeting"], "hello");
 * } finally {
 *   kv.close();
 *   await server.close();
 *   restore();
 * }
 * ```
 */
export function processKvToken(own: string): ProcessKvToken {
  const present = Deno.env.get("DENO_KV_ACCESS_TOKEN");
  if (present !== undefined && tokenProblem(present, "DENO_KV_ACCESS_TOKEN") === undefined) {
    return { token: present, restore() {} };
  }
  Deno.env.set("DENO_KV_ACCESS_TOKEN", own);
  return {
    token: own,
    restore() {
      if (Deno.env.get("DENO_KV_ACCESS_TOKEN") !== own) return; // changed since: not ours to undo
      if (present === undefined) Deno.env.delete("DENO_KV_ACCESS_TOKEN");
      else Deno.env.set("DENO_KV_ACCESS_TOKEN", present);
    },
  };
}
