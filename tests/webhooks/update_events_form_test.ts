// The platform documents a hook's `events` as one comma-separated string
// (PLATFORM.md); SPEC.md's requests send a list. A hook that reaches a record
// in the platform's form (reconcile({ fix }) bringing a record level, or the
// hook update() reads after a lost update) must not make the next update()
// that leaves the events alone refuse them as "not a non-empty array". And
// a read that answers no hook at all fails that update as certain: nothing
// was sent.

import assert from "node:assert/strict";
import { createWebhooks } from "../../webhooks/mod.ts";
import { communityOf, FIRST_HOOK_ID, type Platform, withPlatform } from "./platform.ts";
import { lossyFetch } from "./_lossy_fetch.ts";

const CALLBACK = "https://receiver.example/hooks/1";
const LIST_PATH = "/api/core/v3/webhooks";
const HOOK_PATH = `${LIST_PATH}/${FIRST_HOOK_ID}`;

/** The sandbox's hooks, each with its events as one comma-separated string. */
async function asString(platform: Platform): Promise<Record<string, unknown>[]> {
  return (await platform.listHooks()).map((hook) => ({ ...hook, events: (hook.events as string[]).join(",") }));
}

/** Answers reads of hooks (the list, one hook) with their events as a string. */
function stringEvents(platform: Platform) {
  platform.override = async (req, url) => {
    if (req.method !== "GET") return undefined;
    if (url.pathname === LIST_PATH) return Response.json({ list: await asString(platform), links: {} });
    if (url.pathname === HOOK_PATH) return Response.json((await asString(platform))[0]);
    return undefined;
  };
}

Deno.test("update() after reconcile({ fix }) saved a hook whose events are a string keeps the events", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account", "user_session"], null, CALLBACK);
    const [record] = await hooks.findByTenantID("tenant-acme");
    // The hook was disabled behind the record's back (as an update that died after its PUT leaves it).
    await createWebhooks(kv).update(record.id, { enabled: false });
    await hooks.save(record);
    stringEvents(platform);
    await hooks.reconcile({ tenantId: "tenant-acme" }, { fix: true });
    assert.equal((await hooks.findByID(record.id))?.entity.enabled, false, "the record was brought level");

    const updated = await hooks.update(record.id, { callback: `${CALLBACK}/moved` });
    const hook = await platform.hook(FIRST_HOOK_ID);
    assert.deepEqual(hook?.events, ["user_account", "user_session"]);
    assert.equal(hook?.enabled, false);
    assert.equal(updated.entity.callback, `${CALLBACK}/moved`);
  });
});

Deno.test("update() that reads the hook after a lost update keeps events the platform gives as a string", async () => {
  await withPlatform(async (kv, platform) => {
    const lossy = lossyFetch();
    const hooks = createWebhooks(kv, { fetch: lossy.fetch });
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account", "user_session"], null, CALLBACK);
    const [record] = await hooks.findByTenantID("tenant-acme");
    lossy.lose = true;
    await assert.rejects(hooks.update(record.id, { enabled: false }));
    lossy.lose = false;
    stringEvents(platform);

    await hooks.update(record.id, { callback: `${CALLBACK}/moved` });
    assert.equal(platform.requests("GET", HOOK_PATH).length, 1, "the hook was read before the PUT");
    const hook = await platform.hook(FIRST_HOOK_ID);
    assert.deepEqual(hook?.events, ["user_account", "user_session"]);
    assert.equal(hook?.enabled, false);
    assert.equal(hook?.callback, `${CALLBACK}/moved`);
  });
});

Deno.test("update() whose read of the hook answers no entity rejects as certain: no PUT was sent", async () => {
  await withPlatform(async (kv, platform) => {
    const lossy = lossyFetch();
    const hooks = createWebhooks(kv, { fetch: lossy.fetch });
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [record] = await hooks.findByTenantID("tenant-acme");
    lossy.lose = true;
    await assert.rejects(hooks.update(record.id, { enabled: false }));
    lossy.lose = false;
    platform.override = (req, url) =>
      req.method === "GET" && url.pathname === HOOK_PATH ? Response.json([]) : undefined;

    const error = await hooks.update(record.id, { callback: `${CALLBACK}/moved` }).then(() => null, (e) => e);
    assert.equal(error?.name, "PlatformError");
    assert.equal(platform.requests("PUT", HOOK_PATH).length, 1, "only the lost update's PUT was sent");
    assert.equal(error.uncertain, false, "the failed read is reported as a change that may have been made");
  });
});
