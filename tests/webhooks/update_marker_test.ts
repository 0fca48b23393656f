// update()'s marker (webhooks/platform/_update_marker.ts): set before the
// PUT, deleted with the save. An update whose outcome is unknown leaves it,
// and the next update() reads the hook from the platform before building its
// PUT, so it never sends older fields back; one the platform refused leaves
// none and costs the next update nothing. And reconcile({ fix }) brings a
// record older than its hook level, touching no other.

import assert from "node:assert/strict";
import { createWebhooks } from "../../webhooks/mod.ts";
import { communityOf, FIRST_HOOK_ID, keysUnder, type Platform, withPlatform } from "./platform.ts";
import { lossyFetch } from "./_lossy_fetch.ts";

const CALLBACK = "https://receiver.example/hooks/1";
const HOOK_PATH = `/api/core/v3/webhooks/${FIRST_HOOK_ID}`;
const MARKERS: Deno.KvKey = ["webhook_update"];

/** A hook registered on the platform, with its record, through `fetch` (the test's stand-in for the network). */
async function setup(kv: Deno.Kv, platform: Platform, fetch: typeof globalThis.fetch = globalThis.fetch) {
  const hooks = createWebhooks(kv, { fetch });
  await hooks.communities.save(communityOf(platform));
  await hooks.register("Acme", ["user_account"], null, CALLBACK);
  const [record] = await hooks.findByTenantID("tenant-acme");
  return { hooks, record };
}

Deno.test("update() whose answer was lost after the platform took it: the next update() reads the hook first", async () => {
  await withPlatform(async (kv, platform) => {
    // The connection breaks after the platform answered: the platform changed the hook, the caller cannot know.
    const lossy = lossyFetch();
    const { hooks, record } = await setup(kv, platform, lossy.fetch);
    lossy.lose = true;
    const lost = await hooks.update(record.id, { enabled: false }).then(() => null, (error) => error);
    assert.equal(lost?.uncertain, true);
    assert.equal((await platform.hook(FIRST_HOOK_ID))?.enabled, false);
    assert.equal((await hooks.findByID(record.id))?.entity.enabled, true, "the record is older than the hook");
    assert.equal((await keysUnder(kv, MARKERS)).length, 1, "the update left its marker");
    lossy.lose = false;

    const updated = await hooks.update(record.id, { events: ["user_account", "user_session"] });
    assert.equal(platform.requests("GET", HOOK_PATH).length, 1, "the hook was read before the PUT");
    assert.equal((await platform.hook(FIRST_HOOK_ID))?.enabled, false, "the older state was sent back");
    assert.deepEqual(updated.entity, await platform.hook(FIRST_HOOK_ID));
    assert.deepEqual(await hooks.findByID(record.id), updated);
    // The lost update's marker is younger than its requests' time limits allow: it may still run, so it stays.
    assert.equal((await keysUnder(kv, MARKERS)).length, 1);
  });
});

Deno.test("update() refused by the platform leaves no marker: the next update() sends one PUT and no GET", async () => {
  await withPlatform(async (kv, platform) => {
    const { hooks, record } = await setup(kv, platform);
    platform.override = (req) => req.method === "PUT" ? Response.json({ error: "no" }, { status: 400 }) : undefined;
    await assert.rejects(hooks.update(record.id, { enabled: false }));
    assert.deepEqual(await keysUnder(kv, MARKERS), []);
    platform.override = undefined;
    await hooks.update(record.id, { enabled: false });
    assert.equal(platform.requests("GET", HOOK_PATH).length, 0);
    assert.equal(platform.requests("PUT", HOOK_PATH).length, 2);
    assert.deepEqual(await keysUnder(kv, MARKERS), [], "a saved update deletes its marker");
  });
});

Deno.test("update() deletes the markers of updates that must have died, and keeps one that may still run", async () => {
  await withPlatform(async (kv, platform) => {
    const { hooks, record } = await setup(kv, platform);
    const dead = ["webhook_update", record.id, "dead"];
    const running = ["webhook_update", record.id, "running"];
    await kv.set(dead, { startedAt: Date.now() - 3_600_000 });
    await kv.set(running, { startedAt: Date.now() });
    await hooks.update(record.id, { enabled: false });
    assert.equal(platform.requests("GET", HOOK_PATH).length, 1);
    assert.deepEqual(await keysUnder(kv, MARKERS), [running]);
  });
});

Deno.test("reconcile({ fix }) brings a record level with its hook, and leaves level records and their versions be", async () => {
  await withPlatform(async (kv, platform) => {
    const { hooks, record } = await setup(kv, platform);
    await hooks.register("Acme", ["user_session"], null, `${CALLBACK}/level`);
    const level = (await hooks.findByTenantID("tenant-acme")).find((r) => r.id !== record.id)!;
    const levelStamp = (await kv.get(["webhook", level.id])).versionstamp;
    // The hook changed on the platform behind the record's back (as an update that died after its PUT leaves it).
    platform.override = undefined;
    const older = { ...record, entity: { ...record.entity, enabled: true, events: "user_account" } };
    await hooks.save(older);
    const changed = createWebhooks(kv);
    await changed.update(record.id, { enabled: false, events: ["user_account", "user_session"] });
    await hooks.save(older);

    const report = await hooks.reconcile({ tenantId: "tenant-acme" }, { fix: true });
    assert.deepEqual(report.matched.find((r) => r.id === record.id), older, "the report is the state found");
    const fixed = (await hooks.findByID(record.id))!;
    assert.deepEqual(fixed.entity, await platform.hook(FIRST_HOOK_ID));
    assert.deepEqual(await hooks.findByWebhookURL(String(record.entity.resources?.self?.ref)), [fixed]);
    assert.equal((await kv.get(["webhook", level.id])).versionstamp, levelStamp, "a level record was written");
  });
});

Deno.test("update() succeeds over a thousand markers of updates that died, deleting them over several updates", async () => {
  await withPlatform(async (kv, platform) => {
    const { hooks, record } = await setup(kv, platform);
    // Updates that each lost their answer (a platform timing out for hours, an update retried every minute).
    for (let i = 0; i < 1_000; i += 100) {
      const op = kv.atomic();
      for (let j = i; j < i + 100; j++) op.set(["webhook_update", record.id, `dead-${j}`], { startedAt: j });
      await op.commit();
    }
    const updated = await hooks.update(record.id, { enabled: false });
    assert.equal((await platform.hook(FIRST_HOOK_ID))?.enabled, false);
    assert.deepEqual(await hooks.findByID(record.id), updated);
    const left = (await keysUnder(kv, MARKERS)).length;
    assert.ok(left < 1_000, `${left} markers left`);
    for (let i = 0; i < 20 && (await keysUnder(kv, MARKERS)).length > 0; i++) {
      await hooks.update(record.id, { enabled: i % 2 === 0 });
    }
    assert.deepEqual(await keysUnder(kv, MARKERS), [], "later updates deleted the rest");
  });
});

Deno.test("update() keeps the marker of an update five time limits old: its PUT may still wait on a renewal", async () => {
  await withPlatform(async (kv, platform) => {
    await setup(kv, platform);
    // One PUT of an update may take: the PUT refused (401), the wait for another process's renewal lease (up to two
    // leases of a time limit and 5 s each), the renewal, and the PUT again: five time limits and 10 s.
    const hooks = createWebhooks(kv, { timeout: 1_000 });
    const [record] = await hooks.findByTenantID("tenant-acme");
    const waiting = ["webhook_update", record.id, "waiting"];
    await kv.set(waiting, { startedAt: Date.now() - 5_000 });
    await hooks.update(record.id, { enabled: false });
    assert.deepEqual(await keysUnder(kv, MARKERS), [waiting]);
  });
});

Deno.test("a record removed (unregister, remove, reconcile's fix of a dangling one) takes its update markers along", async () => {
  await withPlatform(async (kv, platform) => {
    const { hooks, record } = await setup(kv, platform);
    const marker = (id: string, n: number) => kv.set(["webhook_update", id, `dead-${n}`], { startedAt: 0 });
    await marker(record.id, 1);
    await hooks.unregister(record.id);
    assert.deepEqual(await keysUnder(kv, MARKERS), [], "unregister left its markers");

    await hooks.register("Acme", ["user_account"], null, `${CALLBACK}/2`);
    const [second] = await hooks.findByTenantID("tenant-acme");
    await marker(second.id, 2);
    await hooks.remove(second.id);
    assert.deepEqual(await keysUnder(kv, MARKERS), [], "remove left its markers");

    await hooks.register("Acme", ["user_account"], null, `${CALLBACK}/3`);
    const [third] = await hooks.findByTenantID("tenant-acme");
    await marker(third.id, 3);
    await platform.removeHook(String(third.entity.id));
    await hooks.reconcile({ tenantId: "tenant-acme" }, { fix: true });
    assert.equal(await hooks.findByID(third.id), null);
    assert.deepEqual(await keysUnder(kv, MARKERS), [], "reconcile's fix left the dangling record's markers");
  });
});

Deno.test("update() after a lost one keeps the record's id and self URL when neither the read nor the PUT gives them", async () => {
  await withPlatform(async (kv, platform) => {
    const lossy = lossyFetch();
    const { hooks, record } = await setup(kv, platform, lossy.fetch);
    lossy.lose = true;
    await assert.rejects(hooks.update(record.id, { enabled: false }));
    lossy.lose = false;
    // A platform that answers with the hook's fields only: no id, no self URL (resources without one).
    platform.override = async (req, url) => {
      if (url.pathname !== HOOK_PATH || (req.method !== "GET" && req.method !== "PUT")) return undefined;
      const hook = req.method === "PUT" ? { ...await platform.hook(FIRST_HOOK_ID), ...await req.json() } : {
        ...await platform.hook(FIRST_HOOK_ID),
      };
      const { id: _id, resources: _resources, ...fields } = hook;
      return Response.json({ ...fields, resources: {} });
    };
    const updated = await hooks.update(record.id, { events: ["user_account", "user_session"] });
    assert.equal(updated.entity.id, record.entity.id);
    assert.deepEqual(updated.entity.resources, record.entity.resources);
    const ref = String(record.entity.resources?.self?.ref);
    assert.deepEqual((await hooks.findByWebhookURL(ref)).map((r) => r.id), [record.id], "no longer found by its URL");
  });
});
