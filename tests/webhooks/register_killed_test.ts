// register() killed with SIGKILL at each of its steps (issue 6): before its
// request, after the platform made the hook, after its save, and what
// reconcile() then reports and repairs. The children are real `deno run`
// processes.

import assert from "node:assert/strict";
import { type Child, spawnChild } from "./_child.ts";
import { assertNothingToDo, CALLBACK, EVENTS, ids, OBJECT, refOf, registerArgs, registerSetup } from "./_processes.ts";

/** Rejects when the child's stdout ends (it died) before `promise` settles. */
function unlessChildDies<T>(promise: Promise<T>, child: Child): Promise<T> {
  const death = child.waitFor(/(?!)/).then((): never => {
    throw new Error("unreachable");
  });
  return Promise.race([promise, death]);
}

Deno.test("register() killed before its request leaves a pending entry that reconcile() reports abandoned and clears", async () => {
  const setup = await registerSetup();
  const child = spawnChild(setup.script, registerArgs(setup, { mode: "hang-before-request" }));
  try {
    const { hooks, platform, community } = setup;
    await child.waitFor("about-to-request");
    await child.kill();

    const pending = await hooks.pending(community.tenantId);
    assert.equal(pending.length, 1);
    assert.equal(pending[0].tenantId, community.tenantId);
    assert.equal(pending[0].community, community.name);
    assert.deepEqual(pending[0].events, EVENTS);
    assert.equal(pending[0].object, OBJECT);
    assert.equal(pending[0].callback, CALLBACK);
    assert.equal((await platform.listHooks()).length, 0);
    assert.equal(platform.requests("POST", "/api/core/v3/webhooks").length, 0);
    assert.deepEqual(await hooks.findByTenantID(community.tenantId), []);

    // Younger than staleAfter (default 60 s): it may still be running, so it is left alone.
    assertNothingToDo(await hooks.reconcile(community, { fix: true }), []);
    assert.equal((await hooks.pending(community.tenantId)).length, 1);

    const report = await hooks.reconcile(community, { fix: true, staleAfter: 0 });
    assert.deepEqual(report.abandoned, pending);
    assert.deepEqual(report.matched, []);
    assert.deepEqual(report.orphans, []);
    assert.deepEqual(report.dangling, []);
    assert.deepEqual(await hooks.pending(community.tenantId), []);
    assert.deepEqual(await hooks.findByTenantID(community.tenantId), []);

    assertNothingToDo(await hooks.reconcile(community, { fix: true, staleAfter: 0 }), []);
  } finally {
    await child.kill();
    await setup.close();
  }
});

Deno.test("register() killed after the platform created the hook leaves an orphan that reconcile() adopts", async () => {
  const setup = await registerSetup();
  const created = Promise.withResolvers<Record<string, unknown>>();
  const release = Promise.withResolvers<void>();
  setup.platform.afterCreate = (entity) => {
    created.resolve(entity);
    return release.promise; // the answer never reaches the child
  };
  const child = spawnChild(setup.script, registerArgs(setup, { mode: "hang" }));
  try {
    const { hooks, platform, community } = setup;
    const entity = await unlessChildDies(created.promise, child);
    await child.kill();
    assert.equal(child.lines.some((line) => line.startsWith("registered ")), false);

    const ref = `${platform.url}/api/core/v3/webhooks/${entity.id}`;
    assert.deepEqual((await platform.listHooks()).map((h) => h.id), [entity.id]);
    assert.deepEqual(await hooks.findByTenantID(community.tenantId), []);
    assert.deepEqual(await hooks.findByWebhookURL(ref), []);
    const pending = await hooks.pending(community.tenantId);
    assert.equal(pending.length, 1);
    assert.equal(pending[0].callback, CALLBACK);

    // While the entry is fresh the hook is unexplained, yet never deleted: its registration may still finish.
    const early = await hooks.reconcile(community, { fix: true, deleteUnknown: true });
    assert.deepEqual(early.orphans.map((orphan) => [orphan.entity.id, orphan.pending]), [[entity.id, null]]);
    assert.ok((await platform.hook(entity.id as string)) !== undefined);
    assert.equal(platform.requests("DELETE").length, 0);
    assert.deepEqual(await hooks.findByTenantID(community.tenantId), []);
    assert.equal((await hooks.pending(community.tenantId)).length, 1);

    const report = await hooks.reconcile(community, { fix: true, staleAfter: 0 });
    assert.equal(report.orphans.length, 1);
    assert.deepEqual(report.orphans[0].entity, entity);
    assert.deepEqual(report.orphans[0].pending, pending[0]);
    assert.deepEqual(report.matched, []);
    assert.deepEqual(report.dangling, []);
    assert.deepEqual(report.abandoned, []);

    const adopted = await hooks.findByWebhookURL(ref);
    assert.equal(adopted.length, 1);
    assert.equal(adopted[0].tenantId, community.tenantId);
    assert.deepEqual(adopted[0].entity, entity);
    assert.deepEqual(ids(await hooks.findByTenantID(community.tenantId)), [adopted[0].id]);
    assert.deepEqual(await hooks.pending(community.tenantId), []);
    assert.ok((await platform.hook(entity.id as string)) !== undefined);

    assertNothingToDo(await hooks.reconcile(community, { fix: true, staleAfter: 0 }), [adopted[0].id]);
  } finally {
    release.resolve();
    await child.kill();
    await setup.close();
  }
});

Deno.test("register() killed after its save leaves a matched hook and nothing for reconcile() to fix", async () => {
  const setup = await registerSetup();
  const child = spawnChild(setup.script, registerArgs(setup, { mode: "hang" }));
  try {
    const { hooks, platform, community } = setup;
    const ref = (await child.waitFor(/^registered /)).slice(11);
    await child.kill();

    const records = await hooks.findByTenantID(community.tenantId);
    assert.equal(records.length, 1);
    assert.equal(refOf(records[0]), ref);
    assert.deepEqual(records[0].entity, await platform.hook(records[0].entity.id!));
    assert.deepEqual(await hooks.pending(community.tenantId), []);

    assertNothingToDo(await hooks.reconcile(community, { fix: true, staleAfter: 0 }), [records[0].id]);
    assertNothingToDo(await hooks.reconcile(community, { fix: true, staleAfter: 0 }), [records[0].id]);
    assert.deepEqual(await hooks.findByTenantID(community.tenantId), records);
    assert.equal((await platform.listHooks()).length, 1);
    assert.equal(platform.requests("DELETE").length, 0);
  } finally {
    await child.kill();
    await setup.close();
  }
});
