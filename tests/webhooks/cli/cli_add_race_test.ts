// Two `communities add` at once of a tenant not stored yet, one with the
// client secret and tokens, one fixing the base URL alone (a provisioning
// script and a person, say): whichever lands first, the other must update it,
// keeping the secret, as two adds of a stored tenant do. Before, both found no
// community and both saved: the later save replaced the first one whole (its
// secret silently dropped), or failed with "the secret changed meanwhile".

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli/mod.ts";
import { createWebhooks } from "../../../webhooks/mod.ts";

const SECRET = btoa("community A's first secret, 32 b");

Deno.test("cli communities add twice at once of a new tenant keeps the secret one of them gave", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_add_race_" });
  try {
    // Pairs on fresh KVs: how the two interleave is up to the scheduler, so several are run; each must end whole.
    for (let pair = 0; pair < 20; pair++) {
      const path = `${dir}/webhooks-${pair}.kv`;
      const err: string[] = [];
      const run = (baseUrl: string, env: Record<string, string>, more: string[] = []) =>
        main(["communities", "add", "--name", "A", "--tenant", "t-a", "--base-url", baseUrl, ...more, "--kv", path], {
          stdout: () => {},
          stderr: (t) => err.push(t),
          env: (name) => env[name],
        });
      const codes = await Promise.all([
        run("https://a.example", { CLIENT_SECRET: SECRET, ACCESS_TOKEN: "access-1" }, ["--client-id", "c1"]),
        run("https://b.example", {}),
      ]);
      assert.deepEqual(codes, [0, 0], `pair ${pair}: ${err.join("\n")}`);
      const kv = await Deno.openKv(path);
      try {
        const community = await createWebhooks(kv).communities.findByTenantID("t-a");
        assert.equal(community?.clientSecret, SECRET, `pair ${pair}: the secret was dropped`);
        assert.equal(community?.clientId, "c1");
        assert.equal(community?.oauth?.access_token, "access-1");
      } finally {
        kv.close();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
