// The sandbox's construction and records: createSandbox()'s option checks,
// communityFor() and oauthClientFor(), and all state kept under "sandbox" keys.

import assert from "node:assert/strict";
import { createSandbox, type SandboxOptions } from "../../sandbox/mod.ts";
import { contentHook, jive, register, signIn, withReceiver, withSandbox } from "./_mounted.ts";

Deno.test("createSandbox() rejects bad options with TypeError or RangeError", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    assert.throws(
      () => createSandbox({} as SandboxOptions),
      new TypeError("Cannot create sandbox: 'kv' must be a Deno.Kv, got undefined"),
    );
    assert.throws(
      () => createSandbox({ kv, basePath: "/sandbox/" }),
      (e: Error) =>
        e instanceof TypeError && e.message.includes("'basePath'") &&
        e.message.includes('"/sandbox/"'),
    );
    assert.throws(
      () => createSandbox({ kv, tokenTtlSeconds: 0 }),
      new RangeError(
        "Cannot create sandbox: 'tokenTtlSeconds' must be a positive integer, got 0",
      ),
    );
    assert.throws(
      () => createSandbox({ kv, fetch: "no" as unknown as typeof fetch }),
      TypeError,
    );
    for (const options of [null, "kv"]) {
      assert.throws(
        () => createSandbox(options as unknown as SandboxOptions),
        new TypeError(`Cannot create sandbox: 'options' must be an object, got ${options}`),
      );
    }
    assert.throws(
      () => createSandbox({ kv, now: 5 as unknown as () => number }),
      new TypeError("Cannot create sandbox: 'now' must be a function, got 5"),
    );
  } finally {
    kv.close();
  }
});

Deno.test("communityFor() gives a stable record whose secret works for JiveEXTN and is kept in KV", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const first = await createSandbox({ kv }).communityFor(
      "http://localhost:8000/",
    );
    assert.equal(first.name, "Sandbox");
    assert.equal(first.tenantId, "sandbox-tenant");
    assert.equal(first.baseUrl, "http://localhost:8000/sandbox");
    assert.match(first.clientId, /\.i$/);
    assert.match(first.clientSecret, /^[A-Za-z0-9+/]+=*\.s$/);
    assert.equal(atob(first.clientSecret.slice(0, -2)).length, 32);
    // A second sandbox on the same KV (a restart) sees the same client.
    const again = await createSandbox({ kv, basePath: "/sb" }).communityFor(
      "https://example.test",
    );
    assert.equal(again.clientId, first.clientId);
    assert.equal(again.clientSecret, first.clientSecret);
    assert.equal(again.baseUrl, "https://example.test/sb");
    assert.deepEqual(Object.keys(first).sort(), [
      "baseUrl",
      "clientId",
      "clientSecret",
      "name",
      "tenantId",
    ]);
    assert.throws(
      () => createSandbox({ kv }).authorizationServerFor("ftp://x"),
      TypeError,
    );
    await assert.rejects(
      () => createSandbox({ kv }).communityFor("not a url"),
      TypeError,
    );
  } finally {
    kv.close();
  }
});

Deno.test("oauthClientFor() describes the console's sign-in client", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const sandbox = createSandbox({ kv });
    const client = await sandbox.oauthClientFor("http://localhost:8000");
    assert.equal(
      client.authorizationEndpoint,
      "http://localhost:8000/sandbox/oauth2/authorize",
    );
    assert.equal(
      client.tokenEndpoint,
      "http://localhost:8000/sandbox/oauth2/token",
    );
    assert.equal(
      client.userinfoEndpoint,
      "http://localhost:8000/sandbox/oauth2/userinfo",
    );
    assert.equal(client.clientId, "sandbox-console");
    assert.ok(client.clientSecret.length >= 40);
    assert.equal(client.issuer, "http://localhost:8000/sandbox");
    assert.deepEqual(client.redirectUris, ["http://localhost:8000/auth/callback"]);
    assert.deepEqual(client.authorizationServer.code_challenge_methods_supported, [
      "S256",
    ]);
    const again = await sandbox.oauthClientFor("http://localhost:8000");
    assert.equal(again.clientSecret, client.clientSecret);
    const community = await sandbox.communityFor("http://localhost:8000");
    assert.notEqual(community.clientSecret, client.clientSecret);
  } finally {
    kv.close();
  }
});

Deno.test('the sandbox keeps all its state under keys starting with "sandbox"', async () => {
  await withReceiver(async (callback) => {
    await withSandbox(async (env) => {
      await env.kv.set(["other", "data"], 1);
      const tokens = await signIn(env);
      await jive(await register(env, tokens.access_token, contentHook(env, callback)));
      await env.sandbox.oauthClientFor(env.origin);
      await env.sandbox.trigger();
      const keys: Deno.KvKey[] = [];
      for await (const entry of env.kv.list({ prefix: [] })) keys.push(entry.key);
      const own = keys.filter((k) => k[0] !== "other");
      assert.ok(own.length >= 5, `keys: ${own.length}`);
      for (const key of own) assert.equal(key[0], "sandbox");
      // Tokens are stored under a hash, never in clear.
      for (const key of own) {
        assert.ok(!key.includes(tokens.access_token));
        assert.ok(!key.includes(tokens.refresh_token!));
      }
      assert.equal((await env.kv.get(["other", "data"])).value, 1);
    });
  });
});
