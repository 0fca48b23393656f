// `hooks register` for a community whose tenant id is as long as one may be (MAX_TENANT_ID_BYTES: its hooks' keys
// fit, and `communities add` takes it): the claim of the request (_register_claim.ts) was keyed by the tenant id
// and a 64-character hash, a key longer than KV's 2 KiB limit, so every register of that community ended with KV's
// "Key too large" and no hook, where the register itself fits. It must register, and a second command of the same
// request at the same time must still be refused.

import assert from "node:assert/strict";
import { cli, registerTwiceAtOnce, runMain, SECRET } from "./_cli_setup.ts";
import { startPlatform } from "../platform.ts";
import { MAX_TENANT_ID_BYTES } from "../../../webhooks/kv/mod.ts";

Deno.test("cli hooks register for a community with the longest tenant id registers, and refuses a second at once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_test_" });
  const platform = await startPlatform({ clientSecret: SECRET });
  try {
    const kv = `${dir}/webhooks.kv`;
    const tenant = "t".repeat(MAX_TENANT_ID_BYTES);
    const added = await runMain([
      ...["communities", "add", "--kv", kv, "--name", "Long", "--tenant", tenant, "--base-url", platform.url],
      ...["--client-id", "client-1", "--client-secret", SECRET],
    ]);
    assert.equal(added.code, 0, added.err);

    const args = [
      ...["hooks", "register", "--kv", kv, "--community", "Long", "--events", "user_account"],
      ...["--callback", "https://me.example/long"],
    ];
    const { runs: [a, b], posts } = await registerTwiceAtOnce(platform, args);

    const [done, refused] = a.code === 0 ? [a, b] : [b, a];
    assert.equal(done.code, 0, done.err);
    assert.match(done.out, /^Registered webhook /);
    assert.equal(posts, 1, `the platform got ${posts} registrations`);
    assert.equal((await platform.listHooks()).length, 1);
    assert.equal(refused.code, 1, refused.out);
    assert.match(refused.err, /^Error: a registration of this callback \(same object and events\)/);

    const listed = await cli(["hooks", "list", "--kv", kv, "--json"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(JSON.parse(listed.stdout).length, 1);
  } finally {
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
});
