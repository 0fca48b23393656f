// The community's token goes to the community's own platform only: a hook's
// entity without an id is addressed by its self URL only when that URL is a
// webhook under the community's base (unregister, update, reconcile).

import assert from "node:assert/strict";
import { createWebhooks, PlatformError } from "../../../webhooks/mod.ts";
import { communityOf, expiredCommunityOf, type Platform, withPlatform } from "../platform.ts";

/** A server on another origin that records what reaches it. */
async function otherOrigin(fn: (url: string, seen: string[]) => Promise<void>): Promise<void> {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    seen.push(`${req.method} ${new URL(req.url).pathname} ${req.headers.get("authorization")}`);
    return new Response(null, { status: 204 });
  });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`, seen);
  } finally {
    await server.shutdown();
  }
}

/** Self URLs of hooks without an id that are not the community's to address. */
function foreignRefs(platform: Platform, other: string): string[] {
  const base = new URL(platform.url);
  return [
    `${other}/platform/api/core/v3/webhooks/5`, // another origin
    `${base.origin}/elsewhere/api/core/v3/webhooks/5`, // the same origin, outside the community's base path
    `${platform.url}/api/core/v3/webhooks/../../../x`, // dot segments out of it
    `${platform.url}/api/core/v3/webhooks/`, // the collection itself
    `${base.protocol}//user@${other.slice(7)}/platform/api/core/v3/webhooks/5`, // userinfo spelling
  ];
}

Deno.test("unregister() and update() of an entity without an id never send the token to a self URL outside the community's platform", async () => {
  await otherOrigin(async (other, seen) => {
    await withPlatform(async (kv, platform) => {
      const hooks = createWebhooks(kv);
      await hooks.communities.save(communityOf(platform));
      for (const [i, ref] of foreignRefs(platform, other).entries()) {
        const record = {
          id: `r${i}`,
          tenantId: "tenant-acme",
          entity: { events: ["user_account"], callback: "https://me.example/hook", resources: { self: { ref } } },
        };
        await hooks.save(record);
        await assert.rejects(() => hooks.unregister(record.id), (error: Error) => {
          assert(error instanceof TypeError);
          assert.match(error.message, /^Cannot delete webhook on the platform: its entity has no id, and its self URL/);
          assert(!error.message.includes("good-token"));
          return true;
        });
        await assert.rejects(() => hooks.update(record.id, { enabled: false }), /^TypeError: Cannot update webhook/);
        assert.deepEqual(await hooks.findByID(record.id), record, ref);
      }
      assert.deepEqual(seen, []);
      assert.deepEqual(platform.requests("DELETE"), []);
      assert.deepEqual(platform.requests("PUT"), []);
    });
  });
});

Deno.test("unregister() of an entity without an id DELETEs its self URL when it is a webhook of the community's platform", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const created = await platform.addHook({ events: ["user_account"], callback: "https://me.example/hook" });
    const { id: _, ...entity } = created;
    await hooks.save({ id: "r1", tenantId: "tenant-acme", entity });
    await hooks.unregister("r1");
    const [del] = platform.requests("DELETE");
    assert.equal(del.path, `/api/core/v3/webhooks/${created.id}`);
    assert.equal(del.authorization, "Bearer good-token");
    assert.equal(await hooks.findByID("r1"), null);
  });
});

Deno.test("reconcile() with deleteUnknown leaves an orphan it cannot address on the community's platform, and reports it", async () => {
  await otherOrigin(async (other, seen) => {
    await withPlatform(async (kv, platform) => {
      const hooks = createWebhooks(kv);
      await hooks.communities.save(communityOf(platform));
      const foreign = {
        events: ["user_account"],
        callback: "https://x.example/h",
        resources: { self: { ref: `${other}/api/core/v3/webhooks/9` } },
      };
      const known = await platform.addHook({ events: ["user_account"], callback: "https://y.example/h" });
      platform.override = (req, url) =>
        req.method === "GET" && url.pathname.endsWith("/api/core/v3/webhooks")
          ? Response.json({ list: [foreign, known], links: {} })
          : undefined;
      const community = (await hooks.communities.findByName("Acme"))!;
      const report = await hooks.reconcile(community, { fix: true, deleteUnknown: true });
      assert.equal(report.orphans.length, 2);
      assert.deepEqual(seen, []);
      // The orphan with an id on the platform is deleted there, as before.
      assert.deepEqual(platform.requests("DELETE").map((r) => r.path), [`/api/core/v3/webhooks/${known.id}`]);
    });
  });
});

Deno.test("register() and the token renewal follow no redirect: a 3xx fails the call, and nothing goes where it points", async () => {
  await otherOrigin(async (other, seen) => {
    await withPlatform(async (kv, platform) => {
      const hooks = createWebhooks(kv);
      // A 303 would turn the registration into a GET whose answer passed for the platform's; a 307 would send its
      // body elsewhere.
      for (
        const [status, location] of [[303, `${platform.url}/other`], [307, `${other}/api/core/v3/webhooks`]] as const
      ) {
        platform.override = (req, url) =>
          req.method === "POST" && url.pathname === "/api/core/v3/webhooks"
            ? new Response(null, { status, headers: { location } })
            : undefined;
        await hooks.communities.save(communityOf(platform));
        await assert.rejects(
          () => hooks.register("Acme", ["document"], "https://c.example/api/core/v3/places/42", "https://me.example/h"),
          (error: PlatformError) => {
            assert(error instanceof PlatformError, String(error));
            assert.equal(error.status, status);
            // A 303 ("see other") may come after the platform made the hook; a 307 asks to send the request elsewhere.
            assert.equal(error.uncertain, status === 303);
            assert.match(
              error.message,
              new RegExp(`a redirect \\(to ${location.replace(/[.?]/g, "\\$&")}\\), not followed`),
            );
            return true;
          },
        );
        assert.deepEqual(await hooks.findByTenantID("tenant-acme"), []);
        // An uncertain failure keeps its pending entry, for reconcile() to adopt the hook if it was made.
        assert.equal((await hooks.pending("tenant-acme")).length, status === 303 ? 1 : 0);
        for (const entry of await hooks.pending("tenant-acme")) {
          await kv.delete(["webhook_pending", "tenant-acme", entry.id]);
        }
      }
      assert.deepEqual(platform.requests("GET"), []);

      // The renewal's form holds the refresh token: a 307 to another origin must not carry it there.
      platform.override = (_req, url) =>
        url.pathname === "/oauth2/token"
          ? new Response(null, { status: 307, headers: { location: `${other}/oauth2/token` } })
          : undefined;
      await hooks.communities.save(expiredCommunityOf(platform));
      await assert.rejects(
        () => hooks.register("Acme", ["document"], "https://c.example/api/core/v3/places/42", "https://me.example/h"),
        (error: PlatformError) =>
          error instanceof PlatformError && error.status === 307 && /token renewal failed/.test(error.message),
      );
    });
    assert.deepEqual(seen, []);
  });
});
