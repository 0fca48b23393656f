// The sandbox's trigger and postback sender: JiveEXTN-signed postbacks,
// hook selection by id and event, delivery statuses, the HTML form's
// redirect, and no postback for a disabled hook.

import assert from "node:assert/strict";
import { verifyJiveExtn } from "../../webhooks/mod.ts";
import { SANDBOX_COMMUNITY } from "../../sandbox/mod.ts";
import { contentHook, jive, register, signIn, withReceiver, withSandbox } from "./_mounted.ts";

Deno.test("POST /trigger delivers a JiveEXTN-signed activity postback that verifyJiveExtn accepts", async () => {
  await withReceiver(async (callback, received) => {
    await withSandbox(async (env) => {
      const tokens = await signIn(env);
      const entity = await jive(await register(env, tokens.access_token, contentHook(env, callback)));
      const response = await fetch(`${env.base}/trigger`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({}),
      });
      assert.equal(response.status, 200);
      const summary = await response.json();
      assert.deepEqual(summary, {
        delivered: [{
          webhookId: entity.id,
          callback,
          event: "discussion",
          verb: "jive:created",
          status: 204,
          // The signature's timestamp names the postback for a redelivery.
          timestamp: env.clock.now,
        }],
      });
      assert.equal(received.length, 1);
      const { headers, body } = received[0];
      assert.equal(headers.get("content-type"), "application/json");
      assert.equal(headers.get("x-tenant-id"), SANDBOX_COMMUNITY.tenantId);
      const community = await env.sandbox.communityFor(env.origin);
      const verified = await verifyJiveExtn(
        headers.get("authorization"),
        community.clientSecret,
        { now: env.clock.now },
      );
      assert.deepEqual(verified, {
        ok: true,
        clientId: community.clientId,
        tenantId: community.tenantId,
        jiveUrl: community.baseUrl!,
        timestamp: env.clock.now,
      });
      const wrongKey = await verifyJiveExtn(
        headers.get("authorization"),
        btoa("not the community secret"),
        { now: env.clock.now },
      );
      assert.equal(wrongKey.ok, false);
      const payload = JSON.parse(body);
      assert.ok(Array.isArray(payload));
      assert.equal(payload.length, 1);
      assert.equal(payload[0].webhook, entity.resources.self.ref);
      const activity = payload[0].activity;
      assert.equal(activity.verb, "jive:created");
      assert.equal(activity.actor.displayName, "Sandbox User");
      assert.equal(activity.object.objectType, "jive:discussion");
      assert.equal(activity.target.id, entity.object);
      assert.equal(activity.provider.url, env.base);
      assert.equal(activity.published, new Date(env.clock.now).toISOString());
      for (const field of ["content", "title", "url"]) {
        assert.equal(typeof activity[field], "string", field);
      }
      assert.ok(!JSON.stringify(summary).includes(community.clientSecret));
      assert.ok(!body.includes(community.clientSecret));
    });
  });
});

Deno.test("POST /trigger picks hooks by webhookId and event, and uses the verb asked for", async () => {
  await withReceiver(async (callback, received) => {
    await withSandbox(async (env) => {
      const tokens = await signIn(env);
      const content = await jive(await register(env, tokens.access_token, contentHook(env, `${callback}?h=content`)));
      const system = await jive(
        await register(env, tokens.access_token, {
          events: ["social_group", "user_account"],
          callback: `${callback}?h=system`,
        }),
      );
      const trigger = async (body: unknown) => {
        const response = await fetch(`${env.base}/trigger`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: await response.json() };
      };
      const all = await trigger({});
      assert.deepEqual(
        all.body.delivered.map((d: { webhookId: string; verb: string }) => [d.webhookId, d.verb]).sort(),
        [[content.id, "jive:created"], [system.id, "jive:social_group_created"]].sort(),
      );
      const byId = await trigger({ webhookId: system.id, event: "user_account" });
      assert.deepEqual(byId.body.delivered.map((d: { webhookId: string }) => d.webhookId), [system.id]);
      assert.equal(byId.body.delivered[0].verb, "jive:user_account_created");
      const last = JSON.parse(received.at(-1)!.body)[0];
      assert.equal(last.webhook, system.resources.self.ref);
      assert.equal(last.activity.object.objectType, "jive:person");

      const byEvent = await trigger({ event: "document", verb: "jive:modified" });
      assert.equal(byEvent.body.delivered.length, 1);
      assert.equal(byEvent.body.delivered[0].webhookId, content.id);
      assert.equal(JSON.parse(received.at(-1)!.body)[0].activity.verb, "jive:modified");
      const none = await trigger({ event: "task" });
      assert.deepEqual(none.body, { delivered: [] });

      assert.equal((await trigger({ webhookId: "999999" })).status, 404);
      assert.equal((await trigger({ event: "blogpost" })).status, 400);
      assert.equal((await trigger({ verb: "created" })).status, 400);
      assert.equal((await trigger({ webhookId: 7 })).status, 400);
      const notJson = await fetch(`${env.base}/trigger`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: "{nope",
      });
      assert.equal(notJson.status, 400);
      assert.deepEqual(await notJson.json(), { error: "The body must be a JSON object" });
      assert.equal(received.length, 2 + 1 + 1);
      await assert.rejects(() => env.sandbox.trigger({ webhookId: "999999" }), RangeError);
    });
  });
});

Deno.test("POST /trigger reports status 0 for an unreachable callback and the receiver's status otherwise", async () => {
  await withReceiver(async (callback) => {
    await withSandbox(async (env) => {
      const tokens = await signIn(env);
      // A port nobody listens on: bind one, note it, close it.
      const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
      const deadPort = (listener.addr as Deno.NetAddr).port;
      listener.close();
      const dead = await jive(
        await register(env, tokens.access_token, contentHook(env, `http://127.0.0.1:${deadPort}/x`)),
      );
      const failing = await jive(await register(env, tokens.access_token, contentHook(env, callback)));
      const summary = await env.sandbox.trigger();
      const byId = new Map(summary.delivered.map((d) => [d.webhookId, d]));
      assert.equal(byId.get(dead.id)!.status, 0);
      assert.equal(byId.get(dead.id)!.error, "The callback could not be reached");
      assert.equal(byId.get(failing.id)!.status, 500);
    });
  }, 500);
});

Deno.test("an HTML form POST /trigger redirects back to the Referer with ?triggered=N", async () => {
  await withReceiver(async (callback) => {
    await withSandbox(async (env) => {
      const tokens = await signIn(env);
      await jive(await register(env, tokens.access_token, contentHook(env, callback)));
      await jive(await register(env, tokens.access_token, contentHook(env, `${callback}/2`)));
      const post = (headers: Record<string, string>, form: Record<string, string> = {}) =>
        fetch(`${env.base}/trigger`, {
          method: "POST",
          headers: { Origin: env.origin, ...headers },
          body: new URLSearchParams(form),
          redirect: "manual",
        });
      const fromConsole = await post({ Referer: `${env.origin}/hooks?triggered=9&tab=2` });
      assert.equal(fromConsole.status, 303);
      const location = new URL(fromConsole.headers.get("location")!);
      assert.equal(location.origin + location.pathname, `${env.origin}/hooks`);
      assert.equal(location.searchParams.get("triggered"), "2");
      assert.equal(location.searchParams.get("tab"), "2");
      await fromConsole.body?.cancel();

      const foreign = await post({ Referer: "http://evil.example/page" }, { event: "discussion" });
      assert.equal(foreign.headers.get("location"), `${env.base}/?triggered=2`);
      await foreign.body?.cancel();

      const cookie = foreign.headers.getSetCookie()[0].split(";")[0]; // the triggering browser's: its notice, once
      const page = await fetch(foreign.headers.get("location")!, { headers: { cookie } });
      assert.match(await page.text(), /Event triggered: 2 postbacks sent/);

      const crossSite = await fetch(`${env.base}/trigger`, {
        method: "POST",
        headers: { Origin: "http://evil.example" },
        body: new URLSearchParams({}),
        redirect: "manual",
      });
      assert.equal(crossSite.status, 403);
      await crossSite.body?.cancel();
    });
  });
});

Deno.test("a disabled hook receives no postback", async () => {
  await withReceiver(async (callback, received) => {
    await withSandbox(async (env) => {
      const tokens = await signIn(env);
      const entity = await jive(await register(env, tokens.access_token, contentHook(env, callback)));
      const disabled = await fetch(entity.resources.self.ref, {
        method: "PUT",
        headers: { Authorization: `Bearer ${tokens.access_token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ ...contentHook(env, callback), enabled: false }),
      });
      assert.equal(disabled.status, 200);
      await disabled.body?.cancel();
      assert.deepEqual(await env.sandbox.trigger(), { delivered: [] });
      assert.deepEqual(await env.sandbox.trigger({ webhookId: entity.id }), { delivered: [] });
      assert.equal(received.length, 0);
    });
  });
});
