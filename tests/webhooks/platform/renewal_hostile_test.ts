// Hostile cases of token renewal with a community's stored tokens: leases
// written by processes whose clocks differ from this one, held by processes
// that died or never let go; calls of one process that mix stored tokens,
// explicit ones and a tokenPersistenceFunction while the platform rotates
// refresh tokens (accepting each once; a throwing or slow function:
// renewal_slow_persist_test.ts); token endpoints that echo the client's
// credentials or answer without a refresh token.

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { createWebhooks } from "../../../webhooks/mod.ts";
import {
  expiredCommunityOf,
  expiredRefusals,
  type Platform,
  tokenEndpointAfterRefusals,
  until,
  withPlatform,
} from "../platform.ts";

const PLACE = "https://c.example/api/core/v3/places/42";
const LEASE_KEY = ["community_renewal", "tenant-acme"];
/** The call time-out of these tests; the lease lasts it plus 5 s. */
const TIMEOUT = 1_000;
const LEASE_MS = TIMEOUT + 5_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What another process does once it renewed under its lease: the platform issues a pair, the process stores it and lets go. */
async function renewElsewhere(kv: Deno.Kv, platform: Platform): Promise<void> {
  await platform.sandbox.issueTokens({ accessToken: "fresh-token", refreshToken: "fresh-refresh" });
  await createWebhooks(kv).communities.storeTokens("tenant-acme", {
    access_token: "fresh-token",
    refresh_token: "fresh-refresh",
  });
  await kv.delete(LEASE_KEY);
}

Deno.test("a lease just taken by a process whose clock is 7 s behind is waited for, not taken over", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: TIMEOUT });
    await hooks.communities.save(expiredCommunityOf(platform));
    // Taken now for LEASE_MS by a clock 7 s behind: its `until` has passed on this clock already.
    await kv.set(LEASE_KEY, { owner: "slow-clock", until: Date.now() + LEASE_MS - 7_000 });
    const registering = hooks.register("Acme", ["document"], PLACE, "https://me.example/hook");
    // Refused, it now waits: a second on, it still has not taken the lease.
    await until(() => expiredRefusals(platform) >= 1, 5_000, "the call's 401");
    await pause(1_000);
    assert.equal(platform.requests("POST", "/oauth2/token").length, 0, "the live holder's refresh token was spent");
    await renewElsewhere(kv, platform);
    await registering;
    assert.equal(platform.requests("POST", "/oauth2/token").length, 0);
    assert.equal(platform.requests("POST", "/api/core/v3/webhooks").at(-1)?.authorization, "Bearer fresh-token");
  }, { tokens: [] });
});

Deno.test("a lease of a dead holder whose clock was a minute ahead holds others back for the lease's length only", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: TIMEOUT });
    await hooks.communities.save(expiredCommunityOf(platform));
    const lease = { owner: "fast-clock", until: Date.now() + LEASE_MS + 60_000 };
    await kv.set(LEASE_KEY, lease);
    const started = Date.now();
    await hooks.register("Acme", ["document"], PLACE, "https://me.example/hook");
    const waited = Date.now() - started;
    assert(waited >= LEASE_MS - 200 && waited < LEASE_MS + 2_000, `waited ${waited} ms for a lease of ${LEASE_MS} ms`);
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    assert.deepEqual((await hooks.communities.findByTenantID("tenant-acme"))?.oauth, platform.issued[0]);
    // It renewed under a lease of its own, and let go of it.
    assert.equal((await kv.get(LEASE_KEY)).value, null);
  }, { tokens: [] });
});

Deno.test("a lease that ran out by more than its length on this clock does not hold back a renewal", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: TIMEOUT });
    await hooks.communities.save(expiredCommunityOf(platform));
    await kv.set(LEASE_KEY, { owner: "dead-process", until: Date.now() - LEASE_MS - 1 });
    const started = Date.now();
    await hooks.register("Acme", ["document"], PLACE, "https://me.example/hook");
    assert(Date.now() - started < 2_000, "it did not wait");
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
  }, { tokens: [] });
});

Deno.test("a call with a tokenPersistenceFunction and one without, refused together with the stored tokens, renew once", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: TIMEOUT });
    await hooks.communities.save(expiredCommunityOf(platform));
    tokenEndpointAfterRefusals(platform, 2);
    const persisted: unknown[] = [];
    const results = await Promise.allSettled([
      hooks.register("Acme", ["document"], PLACE, "https://me.example/a"),
      hooks.register("Acme", ["document"], PLACE, "https://me.example/b", null, null, (tokens) => {
        persisted.push(tokens);
      }),
    ]);
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "fulfilled"], JSON.stringify(results));
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    // Each call's pair went where its own rule says: the function's call to the function, the other to the community.
    assert.deepEqual(persisted, [platform.issued[0]]);
    assert.deepEqual((await hooks.communities.findByTenantID("tenant-acme"))?.oauth, platform.issued[0]);
  }, { tokens: [] });
});

Deno.test("a call given the stored tokens explicitly and one using them, refused together, renew once", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: TIMEOUT });
    await hooks.communities.save(expiredCommunityOf(platform));
    tokenEndpointAfterRefusals(platform, 3);
    const results = await Promise.allSettled([
      hooks.register("Acme", ["document"], PLACE, "https://me.example/a", "expired", "good-refresh"),
      hooks.register("Acme", ["document"], PLACE, "https://me.example/b"),
      hooks.register("Acme", ["document"], PLACE, "https://me.example/c", "expired", "good-refresh"),
    ]);
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "fulfilled", "fulfilled"], JSON.stringify(results));
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    assert.deepEqual((await hooks.communities.findByTenantID("tenant-acme"))?.oauth, platform.issued[0]);
    assert.equal((await kv.get(LEASE_KEY)).value, null);
  }, { tokens: [] });
});

Deno.test("a token endpoint that echoes the Basic credentials it got leaves no client secret in the error", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: TIMEOUT });
    await hooks.communities.save(expiredCommunityOf(platform));
    const basic = new TextEncoder().encode("client-1:secret-1").toBase64();
    platform.override = (req, url) => {
      if (url.pathname !== "/oauth2/token") return undefined;
      const echoed = req.headers.get("authorization");
      return Response.json({ error: "invalid_client", error_description: `unknown client: ${echoed}` }, {
        status: 401,
      });
    };
    const error = await hooks.register("Acme", ["document"], PLACE, "https://me.example/hook").then(
      () => assert.fail("the renewal should fail"),
      (error) => error,
    );
    assert.equal(error.status, 401);
    const shown = `${error.message} ${error.stack} ${JSON.stringify(error.body)} ${JSON.stringify(error)}`;
    assert.match(shown, /unknown client/);
    assert(!shown.includes(basic) && !shown.includes("secret-1"), shown);
  }, { tokens: [] });
});

Deno.test("a call that waits twice a lease's length while other processes keep the lease rejects without renewing", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: TIMEOUT });
    await hooks.communities.save(expiredCommunityOf(platform));
    // Other processes take the lease in turn, each renewing in vain: there is always a live holder.
    let retaking = true;
    const others = (async () => {
      while (retaking) {
        await kv.set(LEASE_KEY, { owner: crypto.randomUUID(), until: Date.now() + LEASE_MS });
        await pause(LEASE_MS / 2);
      }
    })();
    try {
      const started = Date.now();
      const error = await hooks.register("Acme", ["document"], PLACE, "https://me.example/hook").then(
        () => assert.fail("it renewed while another process held the lease"),
        (error) => error,
      );
      assert.equal(platform.requests("POST", "/oauth2/token").length, 0, "a refresh token spent beside a live holder");
      assert.equal(error.name, "PlatformError");
      assert.equal(error.uncertain, false);
      assert.match(error.message, /lease/);
      assert(Date.now() - started < 2 * LEASE_MS + 2_000);
    } finally {
      retaking = false;
      await others;
    }
  }, { tokens: [] });
});

Deno.test("a holder killed after it stored the pair, its lease still held, delays no one", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: TIMEOUT });
    await hooks.communities.save(expiredCommunityOf(platform));
    let killed = false;
    platform.override = async (req) => {
      if (killed || req.headers.get("authorization") !== "Bearer expired") return undefined;
      // While this call's request is under way, another process renews, stores the pair and dies holding the lease.
      killed = true;
      await kv.set(LEASE_KEY, { owner: "killed-after-storing", until: Date.now() + LEASE_MS });
      await renewElsewhere(kv, platform);
      await kv.set(LEASE_KEY, { owner: "killed-after-storing", until: Date.now() + LEASE_MS });
      return undefined;
    };
    const started = Date.now();
    await hooks.register("Acme", ["document"], PLACE, "https://me.example/hook");
    assert(Date.now() - started < 2_000, "it waited for the dead holder's lease");
    assert.equal(platform.requests("POST", "/oauth2/token").length, 0);
    assert.equal(platform.requests("POST", "/api/core/v3/webhooks").at(-1)?.authorization, "Bearer fresh-token");
  }, { tokens: [] });
});

Deno.test("a renewal answered without a refresh_token keeps the old one, which the platform keeps valid", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: TIMEOUT });
    await hooks.communities.save(expiredCommunityOf(platform));
    platform.override = async (_req, url) => {
      if (url.pathname !== "/oauth2/token") return undefined;
      await platform.sandbox.issueTokens({ accessToken: "only-access", refreshToken: "good-refresh" });
      return Response.json({ access_token: "only-access", token_type: "bearer", expires_in: 3600 });
    };
    await hooks.register("Acme", ["document"], PLACE, "https://me.example/hook");
    assert.deepEqual((await hooks.communities.findByTenantID("tenant-acme"))?.oauth, {
      access_token: "only-access",
      refresh_token: "good-refresh",
    });
    assert.equal((await kv.get(LEASE_KEY)).value, null);
  }, { tokens: [] });
});

Deno.test("a held lease's key outlives its until by a lease's length, for a KV whose clock runs ahead of the holder's", async () => {
  // KV Connect sends a key's expiry as a time on the writer's clock; the server drops the key by its own.
  const dir = await Deno.makeTempDir();
  await withPlatform(async (_memory, platform) => {
    const kv = await Deno.openKv(`${dir}/kv.sqlite`);
    try {
      const hooks = createWebhooks(kv, { timeout: TIMEOUT });
      await hooks.communities.save(expiredCommunityOf(platform));
      let expiries: number[] = [];
      let until = 0;
      platform.override = async (_req, url) => {
        if (url.pathname !== "/oauth2/token") return undefined;
        until = (await kv.get<{ until: number }>(LEASE_KEY)).value?.until ?? 0;
        const db = new DatabaseSync(`${dir}/kv.sqlite`, { readOnly: true });
        expiries = db.prepare("SELECT expiration_ms FROM kv WHERE expiration_ms > 0").all().map((row) =>
          Number(row.expiration_ms)
        );
        db.close();
        return undefined;
      };
      await hooks.register("Acme", ["document"], PLACE, "https://me.example/hook");
      assert(until > 0, "the renewal ran under a lease");
      assert.equal(expiries.length, 1);
      assert(expiries[0] >= until + LEASE_MS, `the key expires ${expiries[0] - until} ms after the lease's until`);
    } finally {
      kv.close();
    }
  }, { tokens: [] });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a token endpoint answering 500, or 200 with no token pair, fails the call cleanly and lets go of the lease", async () => {
  const answers: [string, () => Response][] = [
    ["500", () => Response.json({ error: "server_error", error_description: "good-refresh expired" }, { status: 500 })],
    ["not JSON", () => new Response("<html>good-refresh</html>", { status: 200 })],
    ["no access_token", () => Response.json({ token: "x", refresh_token: "new-refresh" })],
    ["a number", () => Response.json({ access_token: 5 })],
    ["an array", () => Response.json([])],
  ];
  for (const [what, answer] of answers) {
    await withPlatform(async (kv, platform) => {
      const hooks = createWebhooks(kv, { timeout: TIMEOUT });
      await hooks.communities.save(expiredCommunityOf(platform));
      platform.override = (_req, url) => url.pathname === "/oauth2/token" ? answer() : undefined;
      const error = await hooks.register("Acme", ["document"], PLACE, "https://me.example/hook").then(
        () => assert.fail(`${what}: the call succeeded`),
        (error) => error,
      );
      assert.equal(error.name, "PlatformError", what);
      assert.equal(error.uncertain, false, what);
      const shown = `${error.message} ${JSON.stringify(error)}`;
      assert(!/good-refresh|expired"|secret-1/.test(shown), `${what}: ${shown}`);
      assert.deepEqual((await hooks.communities.findByTenantID("tenant-acme"))?.oauth, {
        access_token: "expired",
        refresh_token: "good-refresh",
      });
      assert.equal((await kv.get(LEASE_KEY)).value, null, what);
    }, { tokens: [] });
  }
});
