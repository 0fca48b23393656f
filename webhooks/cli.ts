/**
 * The command line of Module A, for scripts and operators:
 * `deno run -A jsr:@community-webhooks/sdk/cli <command>` (in this
 * repository: `deno task cli <command>`).
 *
 * Commands: `communities list|show|add|remove`, `hooks
 * list|find|register|unregister`, `reconcile NAME [--fix]
 * [--delete-unknown]`, `receive [--port] [--hostname]` and `migrate`. Global
 * flags: `--kv` (default `$KV_PATH`, else `./webhooks.kv`), `--json`,
 * `--help`. Exit status 0 on success, 1 when the operation fails (one line on
 * stderr), 2 on a usage error. Secrets come from flags or the environment
 * (`CLIENT_SECRET`, `ACCESS_TOKEN`, `REFRESH_TOKEN`) and are never printed.
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

export * from "./cli/mod.ts";

if (import.meta.main) Deno.exit(await main(Deno.args));
