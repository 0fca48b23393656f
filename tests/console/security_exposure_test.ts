// What the console must not let out or in: an unsigned postback to an
// adoptable receiver id writes nothing, a community moved to another address
// does not hand it its stored secrets, and the console command warns when the
// sandbox signs anyone in on a non-local address.

import assert from "node:assert/strict";
import { signInAtForm, startConsole, trigger, withHook } from "./_helpers.ts";

Deno.test("an unsigned postback to an adoptable receiver id writes nothing", async () => {
  await withHook(async (t, { id, callback, ref, platformId }) => {
    const receiverId = callback.slice(callback.lastIndexOf("/") + 1);
    // As after an interrupted registration that reconcile adopted: no mapping yet.
    await t.kv.delete(["console_receiver", receiverId]);
    await t.kv.delete(["console_receiver_by_hook", id, receiverId]);
    const body = JSON.stringify([{ webhook: ref, activity: { verb: "jive:created" } }]);
    for (const authorization of [undefined, "JiveEXTN algorithm=HmacSHA256&signature=forged"]) {
      const res = await fetch(callback, {
        method: "POST",
        headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
        body,
      });
      await res.body?.cancel();
      assert.equal(res.status, 401);
      assert.equal(
        (await t.kv.get(["console_receiver", receiverId])).value,
        null,
        "no mapping from an unsigned request",
      );
    }
    assert.equal((await t.app.deliveries.list({ hookId: id })).length, 0);
    // The platform's signed postback is accepted and maps the receiver.
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    assert.deepEqual((await t.kv.get(["console_receiver", receiverId])).value, { hookId: id });
    assert.equal((await t.app.deliveries.list({ hookId: id })).length, 1);
  });
});

Deno.test("moving a community to another address does not hand its stored secrets to that address", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
    const secret = btoa("acme client secret");
    const add = await client.post("/communities", {
      _csrf: csrf,
      name: "Acme",
      tenantId: "acme",
      baseUrl: "https://acme.example",
      clientId: "acme-client",
      clientSecret: secret,
      accessToken: "acme-access-token",
      refreshToken: "acme-refresh-token",
    });
    await add.body?.cancel();
    assert.equal(add.status, 303);
    const edit = { _csrf: csrf, name: "Acme", clientId: "acme-client" };

    // Another origin without the secret typed again: refused, nothing changes.
    const moved = await client.post("/communities/acme", { ...edit, baseUrl: "https://evil.example" });
    const html = await moved.text();
    assert.equal(moved.status, 400);
    assert.match(html, /client secret again/);
    assert.ok(!html.includes(secret) && !html.includes("acme-access-token"));
    let stored = (await t.app.webhooks.communities.findByTenantID("acme"))!;
    assert.equal(stored.baseUrl, "https://acme.example");
    assert.equal(stored.clientSecret, secret);
    assert.equal(stored.oauth?.access_token, "acme-access-token");

    // Another path on the same origin keeps everything.
    const path = await client.post("/communities/acme", { ...edit, baseUrl: "https://acme.example/jive" });
    await path.body?.cancel();
    assert.equal(path.status, 303);
    stored = (await t.app.webhooks.communities.findByTenantID("acme"))!;
    assert.equal(stored.baseUrl, "https://acme.example/jive");
    assert.equal(stored.oauth?.access_token, "acme-access-token");

    // With the secret typed again, the move is saved and the old tokens are forgotten.
    const other = btoa("the new address's secret");
    const ok = await client.post("/communities/acme", {
      ...edit,
      baseUrl: "https://new.example",
      clientSecret: other,
    });
    await ok.body?.cancel();
    assert.equal(ok.status, 303);
    stored = (await t.app.webhooks.communities.findByTenantID("acme"))!;
    assert.equal(stored.baseUrl, "https://new.example");
    assert.equal(stored.clientSecret, other);
    assert.equal(stored.oauth, undefined);
  } finally {
    await t.close();
  }
});

/** Runs `console/main.ts` until it listens; resolves with what it printed on stderr by then. */
async function startupWarnings(env: Record<string, string>): Promise<string> {
  const root = new URL("../../", import.meta.url);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", new URL("deno.json", root).pathname, "console/main.ts"],
    cwd: root.pathname,
    env: { PORT: "0", KV_PATH: ":memory:", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    const deadline = Date.now() + 30_000;
    while (!/listening on/.test(text)) {
      assert.ok(Date.now() < deadline, `no start line in: ${text}`);
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
  } finally {
    child.kill("SIGTERM");
    await reader.cancel();
    await child.status;
  }
  assert.match(text, /listening on/);
  return await stderr;
}

Deno.test("the console command warns when the sandbox signs anyone in on a non-local address", async () => {
  const open = await startupWarnings({ HOST: "0.0.0.0" });
  assert.match(open, /anyone who can reach/i);
  const local = await startupWarnings({ HOST: "127.0.0.1" });
  assert.doesNotMatch(local, /anyone who can reach/i);
});
