// A console killed (kill -9) in a token renewal: the platform refused the
// access token (401, expired), the console asked for a new pair, and the
// platform issued it (spending the refresh token, as a platform that rotates
// them does) and holds its answer, so the console never stores it. After a
// restart on the same KV file, the user's retry cannot renew with the spent
// token: the page must say what to do (connect the community again), name no
// secret, and leave the stored records as they were.

import assert from "node:assert/strict";
import { Client, csrfOf, signIn } from "./_helpers.ts";
import { seedHeldHook, startHeldPlatform } from "./_held_platform.ts";
import { startLoggedConsole } from "./_logged_console.ts";
import { createWebhooks } from "../../webhooks/mod.ts";

const SECRETS = [
  "first-access-secret",
  "first-refresh-secret",
  "client-secret-value",
  "access-1-secret",
  "refresh-1-secret",
];

Deno.test("a change retried after the console died holding renewed tokens it never stored says to connect the community again", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  const platform = startHeldPlatform("first-access-secret", "first-refresh-secret");
  const hook = await seedHeldHook(kvPath, platform);
  platform.expire("first-access-secret");
  const env = { PLATFORM_TIMEOUT_SECONDS: "2" };
  let killed = await startLoggedConsole(kvPath, env);
  const logs: string[] = [];
  try {
    const client = await signIn(killed.url);
    const csrf = csrfOf(await client.text(`/webhooks/${hook.id}`, 200));
    const fields = { _csrf: csrf, events: ["user_account", "user_session"], object: "" };
    const issued = platform.hold("token");
    const first = client.post(`/webhooks/${hook.id}/events`, fields).catch((err) => err);
    await issued;
    await killed.kill();
    logs.push(killed.log());
    assert.ok(await first instanceof Error, "the killed console gave no answer");
    platform.release();
    assert.ok(!platform.refresh.has("first-refresh-secret"), "the platform spent the stored refresh token");

    killed = await startLoggedConsole(kvPath, env);
    const again = await signIn(killed.url, new Client(killed.url));
    const csrf2 = csrfOf(await again.text(`/webhooks/${hook.id}`, 200));
    const retry = await again.post(`/webhooks/${hook.id}/events`, { ...fields, _csrf: csrf2 });
    const html = await retry.text();
    assert.ok(retry.status >= 400 && retry.status < 600 && retry.status !== 500, `answered ${retry.status}`);
    assert.match(html, /connect the community again|reconnect/i, html.slice(0, 2000));
    for (const secret of SECRETS) assert.ok(!html.includes(secret), "the page shows a secret");
    const page = await again.text("/communities/held", 200);
    for (const secret of SECRETS) assert.ok(!page.includes(secret), "the community's page shows a secret");

    const kv = await Deno.openKv(kvPath);
    try {
      assert.deepEqual(await createWebhooks(kv).findByID(hook.id), hook, "the record is as it was");
    } finally {
      kv.close();
    }
    await killed.kill();
    logs.push(killed.log());
    for (const secret of SECRETS) assert.ok(!logs.join("\n").includes(secret), "a secret is in the log");
  } finally {
    await killed.kill();
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
});
