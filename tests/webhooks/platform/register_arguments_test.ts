// The arguments register() and reconcile() take: each bad one refused by name
// before any request, callbacks as written (property), and system events
// without an object.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, keysUnder, withPlatform } from "../platform.ts";
import { CALLBACK, PLACE } from "./_register.ts";

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

Deno.test("reconcile() rejects the bad community arguments with findByCommunity's words", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await assert.rejects(() => hooks.reconcile(undefined as never), { message: "community object is required" });
    await assert.rejects(() => hooks.reconcile("Acme" as never), { message: "community must be an object" });
    await assert.rejects(() => hooks.reconcile({} as never), { message: "community object must contain a tenantId" });
    assert.equal(platform.seen.length, 0);
  });
});
