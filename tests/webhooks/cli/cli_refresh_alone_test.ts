// `communities add` with a refresh token (REFRESH_TOKEN or --refresh-token) and no access token stores no tokens: the
// library calls the platform with an access token and renews it with the refresh token only after a 401, so a
// refresh token alone could never be used. The command still saves the community (REFRESH_TOKEN may be set for
// other commands), but it must say on stderr that the refresh token was not stored and why, never its value, rather
// than drop it silently: the user who gave it expects it kept.

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli/mod.ts";
import { createWebhooks } from "../../../webhooks/mod.ts";

const REFRESH = "refresh-value-r1";
const ADD = ["communities", "add", "--name", "Acme", "--tenant", "t1", "--base-url", "https://acme.example"];

async function run(argv: string[], env: Record<string, string>) {
  const dir = await Deno.makeTempDir({ prefix: "cli_refresh_alone_" });
  const path = `${dir}/webhooks.kv`;
  const out: string[] = [];
  const err: string[] = [];
  try {
    const code = await main([...argv, "--kv", path], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env: (name) => env[name],
    });
    const kv = await Deno.openKv(path);
    const stored = await createWebhooks(kv).communities.findByTenantID("t1");
    kv.close();
    return { code, stdout: out.join("\n"), stderr: err.join("\n"), stored };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("communities add with REFRESH_TOKEN and no access token saves the community and says the token was not stored", async () => {
  const { code, stdout, stderr, stored } = await run(ADD, { REFRESH_TOKEN: REFRESH });
  assert.equal(code, 0, stderr);
  assert.match(stdout, /Added community 'Acme'/);
  assert.equal(stored?.oauth, undefined);
  assert.match(stderr, /REFRESH_TOKEN.*not stored.*access token/i);
  assert.ok(!stderr.includes(REFRESH) && !stdout.includes(REFRESH), "the token's value is never shown");
});

Deno.test("communities add --refresh-token without an access token says, naming the flag, that it was not stored", async () => {
  const { code, stdout, stderr } = await run([...ADD, "--refresh-token", REFRESH, "--json"], {});
  assert.equal(code, 0, stderr);
  assert.equal(JSON.parse(stdout).hasRefreshToken, false, "stdout stays one JSON document");
  assert.match(stderr, /--refresh-token.*not stored.*access token/i);
  assert.ok(!stderr.includes(REFRESH), "the token's value is never shown");
});

Deno.test("communities add with both tokens stores both and warns of nothing", async () => {
  const { code, stderr, stored } = await run(ADD, { REFRESH_TOKEN: REFRESH, ACCESS_TOKEN: "access-a1" });
  assert.equal(code, 0, stderr);
  assert.deepEqual(stored?.oauth, { access_token: "access-a1", refresh_token: REFRESH });
  assert.equal(stderr, "");
});
