// Module A against a platform whose answers are of the wrong shape or size:
// what it stores, which requests it sends after, and what the caller sees.

import assert from "node:assert/strict";
import { createWebhooks, PlatformError } from "../../../webhooks/mod.ts";
import { communityOf, FIRST_HOOK_ID, withPlatform } from "../platform.ts";

const CALLBACK = "https://receiver.example/hooks/1";

Deno.test("update() whose PUT answer leaves out the hook's id and self URL keeps them: the record stays findable and removable", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const { entity } = await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const ref = entity.resources!.self!.ref!;
    const [record] = await hooks.findByTenantID("tenant-acme");
    // The platform answers with the fields it changed only.
    platform.override = (req) => req.method === "PUT" ? Response.json({ enabled: false }) : undefined;
    const saved = await hooks.update(record, { enabled: false });
    assert.equal(saved.entity.enabled, false);
    assert.equal(saved.entity.id, FIRST_HOOK_ID);
    assert.deepEqual((await hooks.findByWebhookURL(ref)).map((r) => r.id), [record.id]);
    platform.override = undefined;
    await hooks.unregister(record.id);
    assert.equal(await platform.hook(FIRST_HOOK_ID), undefined);
    assert.equal(await hooks.findByID(record.id), null);
  });
});

Deno.test("update() whose PUT answer holds no entity names the PUT in its error", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [record] = await hooks.findByTenantID("tenant-acme");
    platform.override = (req) => req.method === "PUT" ? new Response(null, { status: 204 }) : undefined;
    await assert.rejects(() => hooks.update(record, { enabled: false }), (e: PlatformError) => e.method === "PUT");
  });
});

Deno.test("unregister() never addresses a hook by an id that is empty or a dot segment: its self URL is used, else nothing is sent", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    const hook = await platform.addHook({ events: ["user_account"], callback: CALLBACK });
    const ref = `${platform.url}/api/core/v3/webhooks/${hook.id}`;
    for (const id of ["", ".", ".."]) {
      await hooks.save({ id: "r1", tenantId: "tenant-acme", entity: { id, resources: { self: { ref } } } });
      await hooks.save({ id: "r2", tenantId: "tenant-acme", entity: { id } });
      await assert.rejects(() => hooks.unregister("r2"), TypeError);
      await hooks.unregister("r1");
      for (const { path } of platform.requests("DELETE")) assert.equal(path, `/api/core/v3/webhooks/${hook.id}`, id);
      assert.equal(await hooks.findByID("r1"), null);
      assert.notEqual(await hooks.findByID("r2"), null);
    }
  });
});

Deno.test("register() whose 2xx answer is the platform's error body rejects with its message and saves no record", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    platform.override = (req) =>
      req.method === "POST" ? Response.json({ error: { status: 403, message: "Not allowed here" } }) : undefined;
    await assert.rejects(
      () => hooks.register("Acme", ["user_account"], null, CALLBACK),
      (e: PlatformError) => e instanceof PlatformError && /Not allowed here/.test(e.message) && e.uncertain === true,
    );
    assert.deepEqual(await hooks.findByTenantID("tenant-acme"), []);
    // A 2xx that says it failed contradicts itself: the pending entry stays for reconcile() to settle.
    assert.equal((await hooks.pending("tenant-acme")).length, 1);
  });
});

Deno.test("register() stops reading an answer larger than any hook, and rejects naming its size", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: 20_000 });
    await hooks.communities.save(communityOf(platform));
    let sent = 0;
    const chunk = new TextEncoder().encode(`"${"x".repeat(65_534)}`);
    const TOTAL = 256 * 1024 * 1024;
    platform.override = (req) => {
      if (req.method !== "POST") return undefined;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= TOTAL) return controller.close();
          sent += chunk.length;
          controller.enqueue(chunk);
        },
      });
      return new Response(body, { headers: { "content-type": "application/json" } });
    };
    await assert.rejects(
      () => hooks.register("Acme", ["user_account"], null, CALLBACK),
      (e: PlatformError) => e instanceof PlatformError && /larger than/.test(e.message),
    );
    assert.ok(sent < 64 * 1024 * 1024, `read ${sent} bytes`);
    assert.deepEqual(await hooks.findByTenantID("tenant-acme"), []);
  });
});

Deno.test("register() whose answer wraps something other than an object as its entity rejects, saving no record", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    for (const entity of [null, [], ["1001"], "1001", 1001]) {
      platform.override = (req) => req.method === "POST" ? Response.json({ entity }) : undefined;
      await assert.rejects(
        () => hooks.register("Acme", ["user_account"], null, CALLBACK),
        (e: PlatformError) => e instanceof PlatformError && e.uncertain && /no webhook entity/.test(e.message),
      );
    }
    assert.deepEqual(await hooks.findByTenantID("tenant-acme"), []);
  });
});

Deno.test("reconcile() stops once the platform's list passes 64 MiB in all, naming the limit, and changes nothing", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv, { timeout: 20_000 });
    await hooks.communities.save(communityOf(platform));
    // A record the platform's list lacks: a fix would remove it, and deleteUnknown would delete the list's hooks.
    await hooks.save({ id: "r1", tenantId: "tenant-acme", entity: { id: "9", callback: CALLBACK } });
    const pad = "x".repeat(15 * 1024 * 1024);
    const PAGES = 6; // 90 MiB in all, each page under the 16 MiB an answer may hold
    let served = 0;
    platform.override = (req, url) => {
      if (req.method !== "GET" || !url.pathname.endsWith("/api/core/v3/webhooks")) return undefined;
      const page = Number(url.searchParams.get("page") ?? "1");
      served++;
      return Response.json({
        list: [{ id: `p${page}`, events: "user_account", callback: `https://other.example/${page}`, pad }],
        links: page < PAGES ? { next: `${platform.url}/api/core/v3/webhooks?page=${page + 1}` } : {},
      });
    };
    await assert.rejects(
      () => hooks.reconcile(communityOf(platform), { fix: true, deleteUnknown: true }),
      (e: Error) => /^Cannot reconcile: the platform's list is larger than 67108864 bytes \(64 MiB\)/.test(e.message),
    );
    assert.equal(served, 5, "pages read after the limit was passed");
    assert.notEqual(await hooks.findByID("r1"), null);
    assert.deepEqual(platform.requests("DELETE"), []);
  });
});
