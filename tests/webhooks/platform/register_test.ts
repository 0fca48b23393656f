import assert from "node:assert/strict";
import fc from "fast-check";
import { createWebhooks, PlatformError, type TokenPair } from "../../../webhooks/mod.ts";
import {
  communityOf,
  expiredCommunityOf,
  FIRST_HOOK_ID,
  HIJACK,
  keysUnder,
  type Platform,
  withPlatform,
} from "../platform.ts";

const CALLBACK = "https://receiver.example/hooks/1";
const PLACE = "https://c.example/api/core/v3/places/42";

Deno.test("register() POSTs {events, object, callback} with the community's token and saves {id, tenantId, entity}", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const response = await hooks.register("Acme", ["document", "discussion"], PLACE, CALLBACK);

    const [post] = platform.requests("POST", "/api/core/v3/webhooks");
    assert.equal(post.authorization, "Bearer good-token");
    assert.equal(post.contentType, "application/json");
    assert.deepEqual(JSON.parse(post.body), { events: ["document", "discussion"], object: PLACE, callback: CALLBACK });

    assert.equal(response.status, 200);
    assert.equal(response.headers["x-platform"], "sandbox");
    const ref = `${platform.url}/api/core/v3/webhooks/${FIRST_HOOK_ID}`;
    assert.equal(response.entity.resources?.self?.ref, ref);
    assert.equal(response.entity.callback, CALLBACK);

    const [record] = await hooks.findByWebhookURL(ref);
    assert.match(record.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(record.tenantId, "tenant-acme");
    assert.deepEqual(record.entity, response.entity);
    assert.deepEqual(Object.keys(record).sort(), ["entity", "id", "tenantId"]);
    assert.deepEqual(await hooks.findByID(record.id), record);
    assert.deepEqual(await hooks.pending("tenant-acme"), []);
  });
});

Deno.test("register() accepts the options form", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const response = await hooks.register({ community: "Acme", events: ["user_account"], callback: CALLBACK });
    assert.deepEqual(JSON.parse(platform.requests("POST")[0].body), { events: ["user_account"], callback: CALLBACK });
    assert.equal((await hooks.findByTenantID("tenant-acme"))[0].entity.id, response.entity.id);
  });
});

Deno.test("register() parses answers with and without the anti-hijacking prefix", async () => {
  for (const prefix of [true, false]) {
    await withPlatform(async (kv, platform) => {
      const hooks = createWebhooks(kv);
      await hooks.communities.save(communityOf(platform));
      const response = await hooks.register("Acme", ["webhook"], undefined, CALLBACK);
      assert.equal(response.entity.id, FIRST_HOOK_ID);
    }, { prefix });
  }
  assert.ok(HIJACK.startsWith("throw 'allowIllegalResourceCall is false.';"));
});

Deno.test("register() unwraps an answer shaped { entity }", async () => {
  await withPlatform(async (kv, platform) => {
    platform.override = (req) =>
      req.method === "POST"
        ? Response.json({ entity: { id: "9", resources: { self: { ref: "https://c.example/w/9" } } } })
        : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const response = await hooks.register("Acme", ["user_session"], undefined, CALLBACK);
    assert.equal(response.entity.id, "9");
    assert.equal((await hooks.findByWebhookURL("https://c.example/w/9")).length, 1);
  });
});

Deno.test("register() rejects with {error} naming the community when none has that name, sending nothing", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const error = await hooks.register("Nope", ["document"], PLACE, CALLBACK).then(() => null, (e) => e);
    assert.deepEqual(Object.keys(error), ["error"]);
    assert.match(error.error, /no such community exists/i);
    assert.ok(error.error.endsWith("Nope"));
    assert.equal(platform.seen.length, 0);
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
  });
});

Deno.test("register() rejects with an Error when no access token is associated or given, sending nothing", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform, { oauth: undefined }));
    await assert.rejects(
      () => hooks.register("Acme", ["document"], PLACE, CALLBACK),
      (e: Error) =>
        e instanceof Error && /creat\w* (the )?community webhook/i.test(e.message) &&
        /no access token/i.test(e.message) && /provided explicitly/.test(e.message),
    );
    assert.equal(platform.seen.length, 0);
    assert.deepEqual(await keysUnder(kv, ["webhook_pending"]), []);
  });
});

Deno.test("register() uses an explicit accessToken in place of the community's own", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform, { oauth: undefined }));
    await hooks.register("Acme", ["document"], PLACE, CALLBACK, "explicit-token");
    assert.equal(platform.requests("POST")[0].authorization, "Bearer explicit-token");
  }, { tokens: ["explicit-token"] });
});

Deno.test("renewal's Basic credentials are the base64 of the UTF-8 id and secret, however long the secret", async () => {
  // A secret near KV's 64 KiB per value, beyond Latin-1.
  const clientSecret = "sécret-☕-".repeat(2_500);
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save({ ...expiredCommunityOf(platform), clientSecret });
    // The test platform knows another secret: the renewal is refused, after it was sent as it should be.
    await assert.rejects(hooks.register("Acme", ["document"], PLACE, CALLBACK), /wrong client secret/);
    const [renewal] = platform.requests("POST", "/oauth2/token");
    const basic = renewal.authorization!.replace(/^Basic /, "");
    assert.equal(new TextDecoder().decode(Uint8Array.fromBase64(basic)), `client-1:${clientSecret}`);
  }, { tokens: [] });
});

Deno.test("register() renews on a 401, retries once and stores the new pair in the community", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(expiredCommunityOf(platform));
    await hooks.register("Acme", ["document"], PLACE, CALLBACK);

    const [renewal] = platform.requests("POST", "/oauth2/token");
    assert.equal(renewal.authorization, "Basic " + btoa("client-1:secret-1"));
    assert.equal(renewal.contentType, "application/x-www-form-urlencoded");
    assert.deepEqual(Object.fromEntries(new URLSearchParams(renewal.body)), {
      grant_type: "refresh_token",
      refresh_token: "good-refresh",
      client_id: "client-1",
    });
    const posts = platform.requests("POST", "/api/core/v3/webhooks");
    assert.deepEqual(posts.map((p) => p.authorization), [
      "Bearer expired",
      `Bearer ${platform.issued[0].access_token}`,
    ]);
    const community = await hooks.communities.findByName("Acme");
    assert.deepEqual(community?.oauth, platform.issued[0]);
    assert.ok(!Number.isNaN(Date.parse(community!.renewedAt!)));
    assert.equal((await hooks.findByTenantID("tenant-acme")).length, 1);
  }, { tokens: [] });
});

Deno.test("register() of a community saved without a client id renews as a public client, then retries", async () => {
  const seen: { path: string; authorization: string | null; body: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const { pathname } = new URL(req.url);
    seen.push({ path: pathname, authorization: req.headers.get("authorization"), body: await req.text() });
    if (pathname === "/oauth2/token") return Response.json({ access_token: "fresh", refresh_token: "fresh-refresh" });
    if (req.headers.get("authorization") !== "Bearer fresh") {
      return Response.json({ error: "expired" }, { status: 401 });
    }
    return Response.json({
      id: "77",
      resources: { self: { ref: `${new URL(req.url).origin}/api/core/v3/webhooks/77` } },
    });
  });
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    const baseUrl = `http://127.0.0.1:${server.addr.port}`;
    await hooks.communities.save({
      name: "Public",
      tenantId: "tenant-public",
      baseUrl,
      oauth: { access_token: "expired", refresh_token: "old-refresh" },
    });
    const answer = await hooks.register("Public", ["document"], PLACE, CALLBACK);
    assert.equal(answer.entity.id, "77");
    assert.deepEqual(seen.map((r) => r.path), ["/api/core/v3/webhooks", "/oauth2/token", "/api/core/v3/webhooks"]);
    // No client id to name or to authenticate with: the refresh token alone, and no Basic credentials.
    assert.equal(seen[1].authorization, null);
    assert.deepEqual(Object.fromEntries(new URLSearchParams(seen[1].body)), {
      grant_type: "refresh_token",
      refresh_token: "old-refresh",
    });
    assert.deepEqual((await hooks.communities.findByName("Public"))?.oauth, {
      access_token: "fresh",
      refresh_token: "fresh-refresh",
    });
  } finally {
    kv.close();
    await server.shutdown();
  }
});

Deno.test("register() renews on a 403 too", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(expiredCommunityOf(platform));
    await hooks.register("Acme", ["document"], PLACE, CALLBACK);
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    assert.equal(platform.requests("POST", "/api/core/v3/webhooks").length, 2);
  }, { tokens: [], forbidWith403: true });
});

Deno.test("register() gives renewed tokens to tokenPersistenceFunction and leaves the community as it was", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    const original = expiredCommunityOf(platform);
    await hooks.communities.save(original);
    const calls: [TokenPair, string][] = [];
    await hooks.register("Acme", ["document"], PLACE, CALLBACK, undefined, undefined, (tokens, community) => {
      calls.push([tokens, community.name]);
    });
    assert.deepEqual(calls, [[platform.issued[0], "Acme"]]);
    assert.deepEqual((await hooks.communities.findByName("Acme"))?.oauth, original.oauth);
  }, { tokens: [] });
});

Deno.test("register() with explicit tokens and no persistence function stores the renewed pair in the community", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform, { oauth: undefined }));
    await hooks.register("Acme", ["document"], PLACE, CALLBACK, "explicit-expired", "good-refresh");
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    assert.deepEqual((await hooks.communities.findByName("Acme"))?.oauth, {
      ...platform.issued[0],
    });
  }, { tokens: [] });
});

Deno.test("register() rejects with the renewal's status when renewal fails, and stores nothing", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(
      communityOf(platform, { oauth: { access_token: "expired", refresh_token: "revoked" } }),
    );
    const error = await hooks.register("Acme", ["document"], PLACE, CALLBACK).then(() => null, (e) => e);
    assert.ok(error instanceof PlatformError);
    assert.equal(error.status, 400);
    assert.match(error.message, /token renewal failed/);
    assert.ok(!error.message.includes("revoked") && !error.message.includes("secret-1"));
    assert.equal(platform.requests("POST", "/api/core/v3/webhooks").length, 1);
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_pending"]), []);
  }, { tokens: [] });
});

Deno.test("register() renews at most once: a second 401 rejects", async () => {
  await withPlatform(async (kv, platform) => {
    platform.override = (_req, url) =>
      url.pathname.startsWith("/api")
        ? Response.json({ error: { status: 401, message: "nope" } }, { status: 401 })
        : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await assert.rejects(() => hooks.register("Acme", ["document"], PLACE, CALLBACK), { status: 401 });
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    assert.equal(platform.requests("POST", "/api/core/v3/webhooks").length, 2);
  });
});

Deno.test("register() rejects with the platform's error, naming method, URL and status but no token, in its message or body", async () => {
  await withPlatform(async (kv, platform) => {
    platform.override = (req) =>
      req.method === "POST"
        ? new Response(HIJACK + JSON.stringify({ error: { status: 500, message: "Boom near good-token" } }), {
          status: 500,
        })
        : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const error = await hooks.register("Acme", ["document"], PLACE, CALLBACK).then(() => null, (e) => e);
    assert.ok(error instanceof PlatformError);
    assert.equal(error.status, 500);
    assert.equal(error.method, "POST");
    assert.equal(error.url, `${platform.url}/api/core/v3/webhooks`);
    assert.match(error.message, new RegExp(`^POST ${platform.url}/api/core/v3/webhooks failed with status 500: Boom`));
    assert.ok(!error.message.includes("good-token"));
    // The platform's body, but for the token it echoed: an error logged whole prints its body.
    assert.deepEqual(error.body, { error: { status: 500, message: "Boom near [redacted]" } });
    assert.ok(!Deno.inspect(error, { depth: 10 }).includes("good-token"));
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_pending"]), []);
  });
});

Deno.test("a platform error's body has every token and the client secret blotted, in nested values and keys", async () => {
  await withPlatform(async (kv, platform) => {
    const echoed = {
      error: { message: "no", detail: ["token good-token", { "secret-1": "good-refresh" }] },
      deep: JSON.parse("[".repeat(40) + '"good-token"' + "]".repeat(40)),
      count: 3,
      ok: false,
      none: null,
    };
    platform.override = (req) => req.method === "POST" ? Response.json(echoed, { status: 400 }) : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(
      communityOf(platform, { oauth: { access_token: "good-token", refresh_token: "good-refresh" } }),
    );
    const error = await hooks.register("Acme", ["document"], PLACE, CALLBACK).then(() => null, (e) => e);
    assert.ok(error instanceof PlatformError);
    const body = error.body as typeof echoed;
    assert.deepEqual(body.error, { message: "no", detail: ["token [redacted]", { "[redacted]": "[redacted]" }] });
    assert.deepEqual([body.count, body.ok, body.none], [3, false, null]);
    const shown = Deno.inspect(error, { depth: 100 });
    for (const secret of ["good-token", "good-refresh", "secret-1"]) assert.ok(!shown.includes(secret), secret);
  });
});

Deno.test("a platform error that echoes the renewal's form has the refresh token blotted as encoded there too", async () => {
  await withPlatform(async (kv, platform) => {
    const refresh = "rt+a/b=c d";
    const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: refresh }).toString();
    platform.override = (req, url) =>
      url.pathname.endsWith("/oauth2/token")
        ? Response.json({
          error: "invalid_grant",
          request: form,
          query: `?refresh_token=${encodeURIComponent(refresh)}`,
        }, {
          status: 400,
        })
        : req.method === "POST"
        ? Response.json({ error: "expired" }, { status: 401 })
        : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform, { oauth: { access_token: "stale", refresh_token: refresh } }));
    const error = await hooks.register("Acme", ["document"], PLACE, CALLBACK).then(() => null, (e) => e);
    assert.ok(error instanceof PlatformError);
    assert.equal(error.status, 400);
    const shown = Deno.inspect(error, { depth: 100 }) + JSON.stringify(error.body);
    for (const spelling of [refresh, "rt%2Ba%2Fb%3Dc+d", "rt%2Ba%2Fb%3Dc%20d"]) {
      assert.ok(!shown.includes(spelling), spelling);
    }
    assert.match(JSON.stringify(error.body), /refresh_token=\[redacted\]/);
  }, { tokens: [] });
});

/**
 * Asserts that `action` rejects as `check` accepts while the platform holds the requests `match` picks (past a
 * time-out); they are answered once it has.
 */
async function rejectsWhileHeld(
  platform: Platform,
  match: (req: Request, url: URL) => boolean,
  action: () => Promise<unknown>,
  check: (error: PlatformError) => boolean,
): Promise<void> {
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  platform.override = async (req, url) => {
    if (!match(req, url)) return undefined;
    await held;
    return new Response("{}");
  };
  try {
    await assert.rejects(action, check);
  } finally {
    release();
  }
}

Deno.test("register() times out a slow platform with status 0, storing no record but keeping the pending entry", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: 100 });
    await hooks.communities.save(communityOf(platform));
    await rejectsWhileHeld(
      platform,
      (req) => req.method === "POST",
      () => hooks.register("Acme", ["document"], PLACE, CALLBACK),
      (e: PlatformError) =>
        e.status === 0 && e.uncertain &&
        /^POST http:\/\/127\.0\.0\.1:\d+\/platform\/api\/core\/v3\/webhooks failed with status 0: no answer within 100 ms$/
          .test(e.message),
    );
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    // The platform may have created the hook before the time-out: reconcile() can adopt it.
    assert.equal((await keysUnder(kv, ["webhook_pending"])).length, 1);
  });
});

Deno.test("register() whose token renewal times out after a 401 rejects as certain, and leaves no pending entry", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: 100 });
    await hooks.communities.save(expiredCommunityOf(platform));
    await rejectsWhileHeld(
      platform,
      (req, url) => req.method === "POST" && url.pathname.endsWith("/oauth2/token"),
      () => hooks.register("Acme", ["document"], PLACE, CALLBACK),
      (e: PlatformError) =>
        e.status === 0 && e.uncertain === false && /oauth2\/token failed with status 0/.test(e.message),
    );
    // The webhook POST was answered 401 and never sent again: nothing for reconcile() to adopt.
    assert.equal(platform.requests("POST", "/api/core/v3/webhooks").length, 1);
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_pending"]), []);
  }, { tokens: [] });
});

Deno.test("register() rejects with status 0 when the platform cannot be reached", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    await hooks.communities.save({
      name: "Acme",
      tenantId: "t",
      baseUrl: `http://127.0.0.1:${port}`,
      oauth: { access_token: "tok", refresh_token: "r" },
    });
    await assert.rejects(
      () => hooks.register("Acme", ["document"], PLACE, CALLBACK),
      // SPEC.md section 7: fetch's own error, with status 0, method and URL added.
      (e: PlatformError) =>
        e instanceof TypeError && e.status === 0 && !e.uncertain && e.method === "POST" &&
        e.url === `http://127.0.0.1:${port}/api/core/v3/webhooks` && !e.message.includes("tok"),
    );
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_pending"]), []);
  } finally {
    kv.close();
  }
});

Deno.test("register() validates every argument before any request, naming the bad one", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const cases: [unknown[], RegExp][] = [
      [["", ["document"], PLACE, CALLBACK], /'jiveCommunity'/],
      [[undefined, ["document"], PLACE, CALLBACK], /'jiveCommunity'/],
      [["Acme", [], PLACE, CALLBACK], /'events' must be a non-empty array/],
      [["Acme", "document", PLACE, CALLBACK], /'events'/],
      [["Acme", ["document", ""], PLACE, CALLBACK], /'events'/],
      [["Acme", ["document", 3], PLACE, CALLBACK], /'events'/],
      [["Acme", new Array(2), PLACE, CALLBACK], /'events' must be a non-empty array of non-empty strings/],
      [["Acme", ["document", , "blogpost"], PLACE, CALLBACK], /'events'/], // a hole: JSON would send null
      [
        ["Acme", ["user_account", "document"], PLACE, CALLBACK],
        /mixes system events \(user_account\) with content events \(document\)/,
      ],
      [["Acme", ["document"], undefined, CALLBACK], /'object' must be a non-empty string for content events/],
      [["Acme", ["document"], "", CALLBACK], /'object'/],
      [["Acme", ["document"], 5, CALLBACK], /'object' must be a string/],
      [["Acme", ["document"], PLACE, "not a url"], /'webhookCallbackURL' must be an absolute http\(s\) URL/],
      [["Acme", ["document"], PLACE, "ftp://x.example/cb"], /'webhookCallbackURL'/],
      [["Acme", ["document"], PLACE, undefined], /'webhookCallbackURL'/],
      // Spellings the URL parser repairs, while the callback goes to the platform as given.
      ...[
        "https://ex\nample.com/h",
        "https://example.com/\th",
        "\u0001https://example.com/h",
        " https://example.com/h",
        "https://example.com/h ",
        "https:example.com/h",
        "https:/example.com/h",
        "https:\\\\example.com\\h",
        "https://example.com/a b",
        "https://example.com/\u0085",
        "http:///path-only",
      ].map((callback): [unknown[], RegExp] => [
        ["Acme", ["document"], PLACE, callback],
        /'webhookCallbackURL' must be an absolute http\(s\) URL/,
      ]),
      [["Acme", ["document"], PLACE, CALLBACK, 42], /'accessToken'/],
      [["Acme", ["document"], PLACE, CALLBACK, "t", 42], /'refreshToken'/],
      [["Acme", ["document"], PLACE, CALLBACK, "t", "r", "fn"], /'tokenPersistenceFunction' must be a function/],
    ];
    for (const [args, message] of cases) {
      await assert.rejects(
        () => (hooks.register as (...a: unknown[]) => Promise<unknown>)(...args),
        (e: Error) =>
          e instanceof TypeError && message.test(e.message) && e.message.startsWith("Cannot register webhook"),
        `${JSON.stringify(args)} should reject with ${message}`,
      );
    }
    assert.equal(platform.seen.length, 0);
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
  });
});

Deno.test("register() sends an absolute http(s) callback as given, whatever the case of its scheme and host", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    for (const callback of ["HTTPS://Me.Example/Hook?a=1&b=%20", "http://127.0.0.1:8080/h#x", "https://[::1]/h"]) {
      const { entity } = await hooks.register("Acme", ["user_account"], null, callback);
      assert.equal(entity.callback, callback);
      assert.equal(JSON.parse(platform.requests("POST").at(-1)!.body).callback, callback);
    }
  });
});

Deno.test("register() property: any callback is refused before a request unless it is an absolute http(s) URL as written", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const piece = fc.constantFrom(
      "https://",
      "http://",
      "HTTPS://",
      "https:",
      "//",
      "/",
      "\\",
      " ",
      "\t",
      "\n",
      "\u0000",
    );
    const callback = fc.tuple(fc.array(piece, { maxLength: 3 }), fc.string({ unit: "binary", maxLength: 30 }))
      .map(([parts, rest]) => parts.join("") + rest);
    await fc.assert(
      fc.asyncProperty(callback, async (text) => {
        const before = platform.requests("POST").length;
        const valid = /^https?:\/\/[^/]/i.test(text) &&
          // deno-lint-ignore no-control-regex
          !/[\u0000-\u0020\u007f-\u009f\\]/.test(text) && (URL.parse(text)?.hostname ?? "") !== "";
        const result = await hooks.register("Acme", ["user_account"], null, text).then(
          (r) => r.entity.callback,
          (e: Error) => e,
        );
        if (valid) assert.equal(result, text, "accepted and sent as given");
        else {
          assert.ok(result instanceof TypeError && /'webhookCallbackURL'/.test(result.message), String(result));
          assert.equal(platform.requests("POST").length, before, "no request for a refused callback");
        }
      }),
      { numRuns: 150 },
    );
  });
});

Deno.test("register() accepts every system event without an object", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account", "user_membership", "user_session", "social_group"], null, CALLBACK);
    await hooks.register("Acme", ["webhook"], undefined, CALLBACK);
    assert.equal((await hooks.findByTenantID("tenant-acme")).length, 2);
  });
});

Deno.test("register() deletes the hook on the platform again when the save fails, then rejects with the save error", async () => {
  await withPlatform(async (kv, platform) => {
    platform.afterCreate = (entity) => {
      entity.description = "x".repeat(70_000); // too large for one KV value
    };
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await assert.rejects(() => hooks.register("Acme", ["document"], PLACE, CALLBACK), RangeError);
    const [del] = platform.requests("DELETE");
    assert.equal(del.path, `/api/core/v3/webhooks/${FIRST_HOOK_ID}`);
    assert.equal(del.authorization, "Bearer good-token");
    assert.equal((await platform.listHooks()).length, 0);
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    assert.deepEqual(await keysUnder(kv, ["webhook_pending"]), []);
  });
});

Deno.test("register() keeps the pending entry when the save fails and the clean-up cannot reach the platform", async () => {
  await withPlatform(async (kv, platform) => {
    platform.afterCreate = (entity) => {
      entity.description = "x".repeat(70_000);
    };
    platform.override = (req) => req.method === "DELETE" ? new Response("down", { status: 503 }) : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await assert.rejects(() => hooks.register("Acme", ["document"], PLACE, CALLBACK), RangeError);
    assert.equal((await platform.listHooks()).length, 1);
    const [pending] = await hooks.pending("tenant-acme");
    assert.deepEqual({ ...pending, id: "", startedAt: 0 }, {
      id: "",
      startedAt: 0,
      tenantId: "tenant-acme",
      community: "Acme",
      events: ["document"],
      object: PLACE,
      callback: CALLBACK,
    });
  });
});

Deno.test("register() propagates a failing community lookup as a rejection", async () => {
  const kv = await Deno.openKv(":memory:");
  const hooks = createWebhooks(kv);
  kv.close();
  await assert.rejects(() => hooks.register("Acme", ["document"], PLACE, CALLBACK));
});

Deno.test("unregister() DELETEs the hook on the platform, then the local record", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const { entity } = await hooks.register("Acme", ["document"], PLACE, CALLBACK);
    const [record] = await hooks.findByWebhookURL(entity.resources!.self!.ref!);
    await hooks.unregister(record);
    const [del] = platform.requests("DELETE");
    assert.equal(del.path, `/api/core/v3/webhooks/${entity.id}`);
    assert.equal(del.authorization, "Bearer good-token");
    assert.equal((await platform.listHooks()).length, 0);
    assert.equal(await hooks.findByID(record.id), null);
    assert.deepEqual(await keysUnder(kv, ["webhook_by_url"]), []);
  });
});

Deno.test("unregister() removes the local record when the platform no longer has the hook (404)", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const { entity } = await hooks.register("Acme", ["document"], PLACE, CALLBACK);
    for (const hook of await platform.listHooks()) await platform.removeHook(String(hook.id));
    const [record] = await hooks.findByTenantID("tenant-acme");
    await hooks.unregister(record.id);
    assert.equal(await hooks.findByID(record.id), null);
    assert.equal(entity.id, FIRST_HOOK_ID);
  });
});

Deno.test("unregister() keeps the local record when the platform refuses, and rejects", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["document"], PLACE, CALLBACK);
    platform.override = (req) =>
      req.method === "DELETE" ? Response.json({ error: { status: 500, message: "x" } }, { status: 500 }) : undefined;
    const [record] = await hooks.findByTenantID("tenant-acme");
    await assert.rejects(() => hooks.unregister(record), { status: 500, method: "DELETE" });
    assert.deepEqual(await hooks.findByID(record.id), record);
  });
});

Deno.test("unregister() renews the token on a 401 and uses the explicit one when given", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["document"], PLACE, CALLBACK);
    await platform.revokeToken("good-token");
    const [record] = await hooks.findByTenantID("tenant-acme");
    const renewed: TokenPair[] = [];
    await hooks.unregister(record, "explicit", "good-refresh", (tokens) => void renewed.push(tokens));
    assert.deepEqual(platform.requests("DELETE").map((d) => d.authorization), [
      "Bearer explicit",
      `Bearer ${platform.issued[0].access_token}`,
    ]);
    assert.equal(renewed.length, 1);
    assert.equal(await hooks.findByID(record.id), null);
  });
});

Deno.test("register() rejects a 2xx answer without an entity, keeping the pending entry for reconcile", async () => {
  await withPlatform(async (kv, platform) => {
    platform.override = (req) => req.method === "POST" ? new Response("[]", { status: 200 }) : undefined;
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await assert.rejects(
      () => hooks.register("Acme", ["document"], PLACE, CALLBACK),
      (e: PlatformError) => e instanceof PlatformError && e.status === 200 && /holds no webhook entity/.test(e.message),
    );
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);
    assert.equal((await hooks.pending("tenant-acme")).length, 1);
  });
});

Deno.test("register() keeps the pending entry when the connection drops after the platform got the request", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, {
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (init?.method !== "POST") return response;
        await response.body?.cancel();
        throw new TypeError("error sending request: connection closed before message completed");
      },
    });
    await hooks.communities.save(communityOf(platform));
    await assert.rejects(
      () => hooks.register("Acme", ["document"], PLACE, CALLBACK),
      (e: PlatformError) => e.status === 0 && e.uncertain && /connection closed/.test(e.message),
    );
    assert.equal((await platform.listHooks()).length, 1);
    const community = (await hooks.communities.findByName("Acme"))!;
    const report = await hooks.reconcile(community, { fix: true, staleAfter: 0 });
    assert.equal(report.orphans.length, 1);
    assert.equal(report.orphans[0].pending?.callback, CALLBACK);
    assert.equal((await hooks.findByWebhookURL(`${platform.url}/api/core/v3/webhooks/${FIRST_HOOK_ID}`)).length, 1);
  });
});

Deno.test("reconcile() rejects the bad community arguments with findByCommunity's words", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await assert.rejects(() => hooks.reconcile(undefined as never), { message: "community object is required" });
    await assert.rejects(() => hooks.reconcile("Acme" as never), { message: "community must be an object" });
    await assert.rejects(() => hooks.reconcile({} as never), { message: "community object must contain a tenantId" });
    assert.equal(platform.seen.length, 0);
  });
});

Deno.test("update() puts the hook back on the platform when its record cannot be saved, then rejects", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [record] = await hooks.findByTenantID("tenant-acme");
    // The same KV, but every commit fails from now on (a full disk, say).
    const broken = createWebhooks(
      new Proxy(kv, {
        get(target, prop) {
          if (prop === "atomic") {
            return () => Object.assign(target.atomic(), { commit: () => Promise.reject(new Error("disk full")) });
          }
          const value = Reflect.get(target, prop);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
    );
    await assert.rejects(() => broken.update(record.id, { enabled: false }), /disk full/);
    const puts = platform.requests("PUT");
    assert.deepEqual(puts.map((put) => JSON.parse(put.body).enabled), [false, true]);
    assert.equal((await platform.hook(FIRST_HOOK_ID))?.enabled, true);
    assert.equal((await hooks.findByID(record.id))?.entity.enabled, true);
  });
});

Deno.test("register() with an access token no header can carry rejects with status 0, the token blotted out", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform, { oauth: { access_token: "SECRETAAAA\nSECRETBBBB" } }));
    await assert.rejects(
      () => hooks.register("Acme", ["user_account"], null, CALLBACK),
      (e: PlatformError) =>
        e.status === 0 && e.method === "POST" && /\[token\]/.test(e.message) && !e.message.includes("SECRET") &&
        !String(e.stack).includes("SECRET"),
    );
    assert.equal(platform.seen.length, 0);
  });
});
