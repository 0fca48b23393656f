// The console's POST /hooks/{id} as a mount of createReceiver: replays,
// cross-tenant and cross-hook items, authentication before the body, and a
// postback of several items stored whole.

import assert from "node:assert/strict";
import { signJiveExtn } from "../../webhooks/mod.ts";
import { MAX_POSTBACK_BYTES } from "../../console/routes/hooks.ts";
import { type TestConsole, withHook } from "./_helpers.ts";

async function sandboxHeader(t: TestConsole, timestamp = Date.now()): Promise<string> {
  const c = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
  return await signJiveExtn(
    { clientId: c.clientId!, jiveUrl: `${t.origin}/sandbox`, tenantId: "sandbox-tenant", timestamp },
    c.clientSecret!,
  );
}

function items(...refs: string[]): string {
  return JSON.stringify(
    refs.map((ref, n) => ({ webhook: ref, activity: { verb: "jive:created", title: `Item ${n}` } })),
  );
}

async function send(url: string, authorization: string | null, body: BodyInit): Promise<[number, unknown]> {
  const res = await fetch(url, {
    method: "POST",
    headers: authorization ? { authorization, "content-type": "application/json" } : {},
    body,
  });
  return [res.status, await res.json()];
}

Deno.test("the console's receiver stores a replayed postback once", async () => {
  await withHook(async (t, hook) => {
    const header = await sandboxHeader(t);
    assert.deepEqual(await send(hook.callback, header, items(hook.ref)), [200, { received: 1 }]);
    assert.deepEqual(await send(hook.callback, header, items(hook.ref, hook.ref)), [200, {
      received: 0,
      duplicate: true,
    }]);
    assert.equal((await t.app.deliveries.page({ status: "accepted" })).values.length, 1);
    const [duplicate] = (await t.app.deliveries.page({ status: "rejected" })).values;
    assert.deepEqual([duplicate.status, duplicate.reason], [200, "Duplicate: this header was already accepted"]);
  });
});

Deno.test("the console's receiver answers 404 to an item of another tenant or of another hook, storing nothing", async () => {
  await withHook(async (t, hook) => {
    await t.app.webhooks.communities.save({
      name: "Elsewhere",
      tenantId: "other-tenant",
      baseUrl: "https://o.example",
    });
    const foreign = "https://o.example/api/core/v3/webhooks/9";
    await t.app.webhooks.save({
      id: "foreign",
      tenantId: "other-tenant",
      entity: { resources: { self: { ref: foreign } } },
    });
    const sibling = `${t.origin}/sandbox/api/core/v3/webhooks/sibling`;
    await t.app.webhooks.save({
      id: "sibling",
      tenantId: "sandbox-tenant",
      entity: { resources: { self: { ref: sibling } } },
    });
    const cases: [string, string][] = [
      ["another tenant's hook", items(foreign)],
      ["another tenant's hook after this one", items(hook.ref, foreign)],
      ["a sibling hook of the tenant", items(sibling)],
      ["this hook and a sibling", items(hook.ref, sibling)],
    ];
    for (const [n, [name, body]] of cases.entries()) {
      const [status, answer] = await send(hook.callback, await sandboxHeader(t, Date.now() - n), body);
      assert.equal(status, 404, name);
      assert.match((answer as { error: string }).error, /^Unknown webhook/, name);
    }
    assert.equal((await t.app.deliveries.page({ status: "accepted" })).values.length, 0);
    assert.ok((await t.app.deliveries.page({ status: "rejected" })).values.every((d) => d.status === 404));
    // The sibling's own receiver path takes its item.
    const [status] = await send(`${t.origin}/hooks/sibling`, await sandboxHeader(t), items(sibling));
    assert.equal(status, 200);
    assert.deepEqual((await t.app.deliveries.page({ status: "accepted" })).values.map((d) => d.hookId), ["sibling"]);
  });
});

Deno.test("the console's receiver stops an endless unsigned body at its limit, and refuses a bad signature", async () => {
  await withHook(async (t) => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1024;
        controller.enqueue(new Uint8Array(1024));
      },
    }, { highWaterMark: 0 });
    // API.md's order: the body's size first (reading stops at the limit), then the signature.
    const res = await t.app.app.request("/hooks/01HZZZZZZZZZZZZZZZZZZZZZZZ", { method: "POST", body: endless });
    assert.equal(res.status, 413);
    await res.body?.cancel();
    assert.ok(pulled <= MAX_POSTBACK_BYTES + 1024, `pulled ${pulled}`);
    const unsigned = await t.app.app.request("/hooks/01HZZZZZZZZZZZZZZZZZZZZZZZ", { method: "POST", body: "[]" });
    assert.equal(unsigned.status, 401);
    assert.match((await unsigned.json()).error, /^Unauthorized/);
  });
});

Deno.test("the console's receiver stores a postback of several items whole, in order", async () => {
  await withHook(async (t, hook) => {
    const [status, answer] = await send(hook.callback, await sandboxHeader(t), items(hook.ref, hook.ref, hook.ref));
    assert.deepEqual([status, answer], [200, { received: 3 }]);
    const stored = await t.app.deliveries.list({ hookId: hook.id });
    assert.deepEqual(stored.map((d) => d.title).reverse(), ["Item 0", "Item 1", "Item 2"]);
  });
});
