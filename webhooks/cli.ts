/**
 * The command line of Module A, for scripts and operators:
 * `deno run -A --unstable-kv jsr:@community-webhooks/sdk/cli <command>` (in this
 * repository: `deno task cli <command>`).
 *
 * Commands: `communities list|show|add|remove|revoke-previous-secret`,
 * `hooks list|find|register|unregister`, `reconcile NAME [--fix]
 * [--delete-unknown]`, `receive [--port] [--hostname]`, `listen --forward-to
 * URL [--hook ID,...] [--print-secret]`, `relay destinations|dead-letters
 * [--destination ID]|attempts ENTRY_ID|redeliver ENTRY_ID...|enable ID|disable ID|
 * remove ID` and `migrate`.
 * Global flags: `--kv` (default `$KV_PATH`, else `./webhooks.kv`), `--json`,
 * `--help`. Exit status 0 on success, 1 when the operation fails (one line on
 * stderr), 2 on a usage error; Ctrl-C (or SIGTERM) stops `receive` and `listen` with 0, and
 * interrupts any other command (or a second one, them) with 130. Secrets
 * come from flags or the environment (`CLIENT_SECRET`, `ACCESS_TOKEN`,
 * `REFRESH_TOKEN`, `WEBHOOK_SECRET`) and are never printed (`listen` shows
 * the secret it generates only with `--print-secret`). With `--kv` a KV
 * Connect URL, a KV operation that has not answered within
 * `KV_TIMEOUT_SECONDS` (default 30) fails the command (status 1), naming the
 * KV's origin.
 *
 * @example Usage
 * ```ts
 * import { main } from "@community-webhooks/sdk/cli";
 * import assert from "node:assert/strict";
 *
 * const lines: string[] = [];
 * const code = await main(["communities", "list", "--kv", ":memory:", "--json"], {
 *   stdout: (text) => lines.push(text),
 *   stderr: () => {},
 *   env: () => undefined,
 * });
 * assert.equal(code, 0);
 * assert.deepEqual(JSON.parse(lines.join("\n")), []);
 * ```
 *
 * @module
 */

import { main } from "./cli/mod.ts";

export { main } from "./cli/mod.ts";
export type { CliIO } from "./cli/mod.ts";

/**
 * How long the process may take to end on its own after the command returns
 * before it is ended with `Deno.exit`.
 */
const EXIT_GRACE_MS = 2_000;

if (import.meta.main) {
  // The process ends on its own once the command has returned (its KV closed,
  // its server and signal listener gone) rather than through Deno.exit: with
  // OTEL_DENO=true, Deno.exit can hang for good (Deno 2.9: exit waits for the
  // metrics reader, which may be waiting for the isolate that is exiting;
  // docs/observability.md, "Ending the process"). Should something still keep
  // the process alive, the unref'd timer ends it anyway.
  const status = await main(Deno.args);
  Deno.exitCode = status;
  Deno.unrefTimer(setTimeout(() => Deno.exit(status), EXIT_GRACE_MS));
}
