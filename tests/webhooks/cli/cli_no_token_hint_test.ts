// A community added without tokens (the first `communities add` a newcomer
// types often has none): `reconcile` and `hooks register` fail with status 1
// and one line that, beyond the library's "no access token is associated with
// the community" (SPEC.md's wording, kept), says how to store one with this
// very command line; nothing is sent, nothing stored changes.

import assert from "node:assert/strict";
import { ACME_PLATFORM_CALLS, cli } from "./_cli_setup.ts";

Deno.test("cli: a community without an access token is told how to give it one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_no_token_" });
  try {
    const kv = `${dir}/webhooks.kv`;
    const base = ["--name", "Acme", "--tenant", "t-acme", "--base-url", "http://127.0.0.1:9/platform"];
    const added = await cli(["communities", "add", "--kv", kv, ...base]);
    assert.equal(added.code, 0, added.stderr);
    for (const args of ACME_PLATFORM_CALLS) {
      const run = await cli([...args, "--kv", kv]);
      assert.equal(run.code, 1, run.stderr);
      const lines = run.stderr.trim().split("\n");
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0], /no access token is associated with the community and none was provided explicitly/);
      assert.match(
        lines[0],
        /ACCESS_TOKEN=\S+ REFRESH_TOKEN=\S+ deno task cli communities add --name /,
        lines[0],
      );
    }
    const hooks = await cli(["hooks", "list", "--kv", kv, "--json"]);
    assert.deepEqual(JSON.parse(hooks.stdout), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
