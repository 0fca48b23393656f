// `communities add` on a stored tenant updates it; when the community is
// removed between the update's read and its commit, the update finds none and
// the command adds it anew from the flags alone. What it says must then be of
// that add: no "renamed from" the removed one's name, and no warning that the
// removed one's client secret or tokens were kept (the new record has none).
//
// The removal is made to land at that very point through a real KV Connect
// server over a KV file, behind a relay on 127.0.0.1 that, before the
// command's first atomic write reaches the server, removes the community
// through a second handle on the file.

import assert from "node:assert/strict";
import { runAdd, SECRET } from "./_add_setup.ts";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";

const run = (kv: string, argv: string[], env: Record<string, string> = {}) =>
  runAdd(kv, argv, env, [SECRET, "access-1", "refresh-1"]);

Deno.test("cli communities add that finds its community removed before its commit says only what it added", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_add_removed_" });
  const path = `${dir}/webhooks.kv`;
  const server = await startKvConnectServer({ path, token: TEST_TOKEN });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const local = await Deno.openKv(path);
  const hooks = createWebhooks(local);
  let armed = false;
  let removed = false;
  // Forwards every request to the server; the first atomic write once armed goes after the community's removal.
  const relay = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const url = new URL(request.url);
    if (armed && !removed && url.pathname === "/v2/atomic_write") {
      removed = await hooks.communities.remove("t-a");
    }
    return await fetch(new URL(url.pathname + url.search, server.url), {
      method: request.method,
      headers: request.headers,
      body: request.body === null ? null : await request.arrayBuffer(),
    });
  });
  const remote = `http://127.0.0.1:${relay.addr.port}`;
  try {
    const first = await run(remote, [
      ...["communities", "add", "--name", "Old", "--tenant", "t-a", "--base-url", "https://old.example"],
      "--client-id",
      "c1",
    ], { CLIENT_SECRET: SECRET, ACCESS_TOKEN: "access-1", REFRESH_TOKEN: "refresh-1" });
    assert.equal(first.code, 0, first.err);
    armed = true;
    const again = await run(remote, [
      ...["communities", "add", "--name", "New", "--tenant", "t-a", "--base-url", "https://new.example"],
      "--client-id",
      "c2",
    ]);
    assert.ok(removed, "the community was not removed before the command's commit");
    assert.equal(again.code, 0, again.err);
    // Stored anew from the flags: none of the removed one's secrets came along.
    const community = await hooks.communities.findByTenantID("t-a");
    assert.equal(community?.name, "New");
    assert.equal(community?.clientSecret, undefined);
    assert.equal(community?.oauth, undefined);
    assert.equal(again.out, "Added community 'New' (tenant t-a)");
    assert.equal(again.err, "", "it warned of secrets the added community does not hold");
  } finally {
    await relay.shutdown();
    local.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
