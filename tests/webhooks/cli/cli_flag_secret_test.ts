// A flag's value the library refuses is said back as a usage error (exit 2) in the flag's name. When that value is
// a secret given by mistake (the access token pasted as --base-url, the client secret as --callback), the message
// must blot it out as every other error of the CLI does: the terminal, a CI log or a shared screen never shows it.

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli/mod.ts";

const TOKEN = "tok_live_0123456789abcdefSECRET";
const CLIENT_SECRET = "cs_live_9876543210zyxwvuSECRET";
const ENV: Record<string, string> = { ACCESS_TOKEN: TOKEN, CLIENT_SECRET };

async function run(path: string, argv: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await main([...argv, "--kv", path], {
    stdout: (t) => lines.push(t),
    stderr: (t) => lines.push(t),
    env: (name) => ENV[name],
  });
  return { code, out: lines.join("\n") };
}

Deno.test("a secret given as a refused flag's value is blotted out of the usage error", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_flag_secret_" });
  const path = `${dir}/webhooks.kv`;
  try {
    const asBaseUrl = await run(path, ["communities", "add", "--name", "Acme", "--tenant", "t1", "--base-url", TOKEN]);
    assert.equal(asBaseUrl.code, 2, asBaseUrl.out);
    assert.match(asBaseUrl.out, /^Error: --base-url must be an absolute http\(s\) URL/m);
    assert.doesNotMatch(asBaseUrl.out, new RegExp(TOKEN), "the access token is not shown");

    const base = ["communities", "add", "--name", "Acme", "--tenant", "t1", "--base-url", "http://127.0.0.1:9"];
    assert.equal((await run(path, base)).code, 0);
    const register = ["hooks", "register", "--community", "Acme", "--events", "user_account"];
    const asCallback = await run(path, [...register, "--callback", CLIENT_SECRET]);
    assert.equal(asCallback.code, 2, asCallback.out);
    assert.match(asCallback.out, /^Error: --callback must be/m);
    assert.doesNotMatch(asCallback.out, new RegExp(CLIENT_SECRET), "the client secret is not shown");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
