// Bad arguments of Module A's calls that no other test passed: each is refused with a TypeError or RangeError that
// names the argument, before any request reaches the platform, and the store is left as it was.

import assert from "node:assert/strict";
import { type Community, createWebhooks, type Webhook, type Webhooks } from "../../webhooks/mod.ts";
import { type Platform, withCommunity } from "./platform.ts";
import { CALLBACK, EVENTS, OBJECT } from "./_processes.ts";

/** A fresh in-memory KV, the sandbox platform, its community and one registered hook, closed after `fn`. */
async function withHook(
  fn: (hooks: Webhooks, platform: Platform, community: Community, record: Webhook, kv: Deno.Kv) => Promise<void>,
): Promise<void> {
  await withCommunity(async (hooks, platform, community, kv) => {
    const answer = await hooks.register(community.name, EVENTS, OBJECT, CALLBACK);
    const [record] = await hooks.findByWebhookURL(answer.entity.resources!.self!.ref!);
    await fn(hooks, platform, community, record, kv);
  });
}

/** Every key and value in the KV, to show that a refused call changed nothing. */
async function everything(kv: Deno.Kv): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const entry of kv.list({ prefix: [] })) out.push([entry.key, entry.value]);
  return out;
}

Deno.test("save() refuses an 'entity' that is not an object with a TypeError naming it, and stores nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    for (const entity of ["https://x.example/hook", 42, null]) {
      await assert.rejects(
        hooks.save({ id: "hook-1", tenantId: "t1", entity } as unknown as Webhook),
        (error: Error) => error instanceof TypeError && /'entity' must be an object/.test(error.message),
      );
    }
    assert.equal(await hooks.findByID("hook-1"), null);
    assert.deepEqual(await everything(kv), []);
  } finally {
    kv.close();
  }
});

Deno.test("findWebhookCommunity() refuses a webhook that is not an object with a TypeError", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    for (const webhook of ["hook-1", null, 7]) {
      await assert.rejects(
        hooks.findWebhookCommunity(webhook as unknown as Webhook),
        (error: Error) => error instanceof TypeError && /the webhook must be an object/.test(error.message),
      );
    }
  } finally {
    kv.close();
  }
});

Deno.test("migrate() refuses options that are not an object with a TypeError naming them", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    for (const options of [null, "fast", 3]) {
      await assert.rejects(
        hooks.migrate(options as never),
        (error: Error) =>
          error instanceof TypeError && /Cannot migrate: 'options' must be an object/.test(error.message),
      );
    }
  } finally {
    kv.close();
  }
});

Deno.test("reconcile() refuses a negative or non-finite 'staleAfter' with a RangeError before asking the platform", async () => {
  await withHook(async (hooks, platform, community, _record, kv) => {
    const before = await everything(kv);
    const asked = platform.seen.length;
    for (const staleAfter of [-1, Number.NaN, Infinity]) {
      await assert.rejects(
        hooks.reconcile(community, { staleAfter, fix: true }),
        (error: Error) => error instanceof RangeError && /'staleAfter' must be a number of ms/.test(error.message),
      );
    }
    assert.equal(platform.seen.length, asked, "a refused reconcile reached the platform");
    assert.deepEqual(await everything(kv), before);
  });
});

Deno.test("update() refuses bad 'options', 'changes' or 'enabled' with a TypeError naming them, sending nothing", async () => {
  await withHook(async (hooks, platform, _community, record, kv) => {
    const before = await everything(kv);
    const asked = platform.seen.length;
    const refusals: [() => Promise<unknown>, RegExp][] = [
      [() => hooks.update(record, { enabled: false }, [] as never), /'options' must be an object/],
      [() => hooks.update(record, null as never), /'changes' must be an object/],
      [() => hooks.update(record, ["enabled"] as never), /'changes' must be an object/],
      [() => hooks.update(record, { enabled: "no" } as never), /'enabled' must be a boolean, got "no"/],
    ];
    for (const [call, message] of refusals) {
      await assert.rejects(call(), (error: Error) => error instanceof TypeError && message.test(error.message));
    }
    assert.equal(platform.seen.length, asked, "a refused update reached the platform");
    assert.deepEqual(await everything(kv), before);
  });
});

Deno.test("update() of a record whose community was removed names its tenantId and sends nothing", async () => {
  await withHook(async (hooks, platform, community, record) => {
    await hooks.communities.remove(community.tenantId);
    const asked = platform.seen.length;
    await assert.rejects(
      hooks.update(record.id, { enabled: false }),
      (error: Error) => /Cannot update webhook: no community has the tenantId "tenant-acme"/.test(error.message),
    );
    assert.equal(platform.seen.length, asked, "an update without a community reached the platform");
    assert.deepEqual(await hooks.findByID(record.id), record);
    assert.equal((await platform.listHooks())[0].enabled ?? true, true);
  });
});
