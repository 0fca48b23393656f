// A callback refused before any request (not an absolute http(s) URL: a space in its host, another scheme) may still
// carry a password: the error that names it, which the command line prints, shows its user info as `***`.

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli/mod.ts";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, startPlatform } from "../platform.ts";

const PASSWORD = "hunter2-refused-password";

const REFUSED = [
  `https://user:${PASSWORD}@app example/cb`,
  `ftp://user:${PASSWORD}@app.example/cb`,
  `https:\\\\user:${PASSWORD}@app example/cb`,
  `user:${PASSWORD}@app.example/cb`,
  `https://${PASSWORD}@app example/`,
];

Deno.test("register() refusing a callback that is no absolute http(s) URL names it without its user info", async () => {
  using kv = await Deno.openKv(":memory:");
  const platform = await startPlatform();
  try {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    for (const callback of REFUSED) {
      const err = await hooks.register("Acme", ["user_account"], null, callback, "tok", "ref").catch((e) => e);
      assert.ok(err instanceof TypeError, String(err));
      assert.match(err.message, /'webhookCallbackURL' must be an absolute http\(s\) URL, got ".*\*\*\*@app/);
      assert.ok(!err.message.includes(PASSWORD), err.message);
    }
  } finally {
    await platform.close();
  }
});

Deno.test("cli hooks register with a refused callback prints the error without the callback's password", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_refused_url_" });
  const platform = await startPlatform();
  try {
    const path = `${dir}/webhooks.kv`;
    const kv = await Deno.openKv(path);
    await createWebhooks(kv).communities.save(communityOf(platform)).finally(() => kv.close());
    for (const callback of REFUSED) {
      const out: string[] = [];
      const args = ["hooks", "register", "--community", "Acme", "--events", "user_account", "--callback", callback];
      const code = await main([...args, "--kv", path], {
        stdout: (t) => out.push(t),
        stderr: (t) => out.push(t),
        env: (name) => ({ ACCESS_TOKEN: "good-token", REFRESH_TOKEN: "good-refresh" })[name],
      });
      assert.notEqual(code, 0);
      assert.match(out.join("\n"), /\*\*\*@app/);
      assert.ok(!out.join("\n").includes(PASSWORD), out.join("\n"));
    }
  } finally {
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
});
