// reconcile() paths no other test ran: a links.next page on another origin (the community's token must not go
// there) and a hook whose object was changed on the platform (fix brings the record level with it).

import assert from "node:assert/strict";

import { HIJACK, withCommunity } from "./platform.ts";
import { CALLBACK, EVENTS, OBJECT } from "./_processes.ts";

Deno.test("reconcile() refuses a links.next page on another origin: no request goes there and nothing is fixed", async () => {
  const elsewhere: (string | null)[] = [];
  const other = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    elsewhere.push(req.headers.get("authorization"));
    return Response.json({ list: [] });
  });
  try {
    await withCommunity(async (hooks, platform, community) => {
      const answer = await hooks.register(community.name, EVENTS, OBJECT, CALLBACK);
      const [record] = await hooks.findByWebhookURL(answer.entity.resources!.self!.ref!);
      await platform.removeHook(answer.entity.id!); // dangling: a fix would remove the record
      const next = `http://127.0.0.1:${other.addr.port}/api/core/v3/webhooks?startIndex=100`;
      platform.override = (req, url) => {
        if (req.method !== "GET" || url.pathname !== "/api/core/v3/webhooks") return undefined;
        return new Response(HIJACK + JSON.stringify({ list: [], links: { next } }), {
          headers: { "Content-Type": "application/json" },
        });
      };
      await assert.rejects(
        hooks.reconcile(community, { fix: true }),
        (error: Error) =>
          error.message.includes(`the platform's next page ${next} is not on ${new URL(platform.url).origin}`) &&
          !error.message.includes("good-token"),
      );
      assert.deepEqual(elsewhere, [], "the other origin was asked (with the community's token)");
      assert.deepEqual(await hooks.findByID(record.id), record, "a refused reconcile changed the store");
    });
  } finally {
    await other.shutdown();
  }
});

Deno.test("reconcile() with fix saves a hook's object changed on the platform into its record", async () => {
  await withCommunity(async (hooks, platform, community) => {
    const answer = await hooks.register(community.name, EVENTS, OBJECT, CALLBACK);
    const [record] = await hooks.findByWebhookURL(answer.entity.resources!.self!.ref!);
    // Another client moves the hook to another place, callback and events kept.
    const put = await fetch(`${platform.url}/api/core/v3/webhooks/${answer.entity.id}`, {
      method: "PUT",
      headers: { Authorization: "Bearer good-token", "Content-Type": "application/json" },
      body: JSON.stringify({ events: EVENTS, object: "/places/2", callback: CALLBACK }),
    });
    await put.body?.cancel();
    assert.equal(put.status, 200);

    const report = await hooks.reconcile(community, { fix: true });
    assert.deepEqual(report.matched.map((r) => r.id), [record.id]);
    const level = await hooks.findByID(record.id);
    assert.equal(level?.entity.object, "/places/2");
    assert.equal(level?.entity.callback, CALLBACK);
  });
});
