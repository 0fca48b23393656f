// Process-level tests of Module A: update(), unregister() and
// reconcile({ fix: true }) killed with SIGKILL in the middle, (a) while their
// platform request is in flight and (b) once the platform acted on it but
// before its answer reached the child. The parent then checks that no record
// is half written, that reconcile() reports the drift as it is, that fix
// converges, and that the killed operation can be run again.

import assert from "node:assert/strict";
import type { Webhook, Webhooks } from "../../webhooks/mod.ts";
import { type Child, spawnChild, WEBHOOKS_MOD } from "./_child.ts";
import { type FileSetup, fileSetup } from "./_file_setup.ts";
import { assertFixedOnce, type Drift, makeDrift } from "./_drift.ts";

// Child: runs one operation of Module A on the shared KV file, then waits to be killed.
const OPERATION = `
import { createWebhooks } from ${JSON.stringify(WEBHOOKS_MOD)};
const { kvPath, op, id, changes, options } = JSON.parse(Deno.args[0]);
const kv = await Deno.openKv(kvPath);
const hooks = createWebhooks(kv);
console.log("started");
if (op === "update") await hooks.update(id, changes);
else if (op === "unregister") await hooks.unregister(id);
else await hooks.reconcile({ tenantId: id }, options);
console.log("done");
setInterval(() => {}, 60_000);
`;

const CALLBACK = "https://receiver.example/hooks/one";
const HOOKS_PATH = "/api/core/v3/webhooks";

/** The shared KV file, platform and community, with the OPERATION script; `release` lets held requests go at close. */
interface Setup extends FileSetup {
  release: PromiseWithResolvers<void>;
}

async function setup(): Promise<Setup> {
  const base = await fileSetup("webhooks_kill_ops_", "operation.js", OPERATION);
  const release = Promise.withResolvers<void>();
  return {
    ...base,
    release,
    async close() {
      release.resolve();
      await base.close();
    },
  };
}

/** Runs `fn` with a fresh setup, closed afterwards whatever `fn` did. */
async function withSetup(fn: (s: Setup) => Promise<void>): Promise<void> {
  const s = await setup();
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

type Moment = "in flight" | "after the platform acted";

/**
 * Holds the first `method` request under `/api/core/v3/webhooks` until the
 * setup closes: before the platform acts on it ("in flight"), or after it
 * did, before its answer is sent. Resolves when it arrived there.
 */
function hold(s: Setup, method: string, moment: Moment): Promise<void> {
  const arrived = Promise.withResolvers<void>();
  let held = false;
  const take = (req: Request, url: URL) => {
    if (held || req.method !== method || !url.pathname.startsWith(HOOKS_PATH)) return false;
    held = true;
    arrived.resolve();
    return true;
  };
  if (moment === "in flight") {
    // Once released (the child is dead by then), the request is answered without touching the platform's state.
    s.platform.override = async (req, url) =>
      take(req, url) ? await s.release.promise.then(() => new Response(null, { status: 503 })) : undefined;
  } else {
    s.platform.beforeAnswer = async (req, url) => {
      if (take(req, url)) await s.release.promise;
    };
  }
  return arrived.promise;
}

/** Runs `op` in a child, waits until the platform holds its request, and kills the child with SIGKILL. */
async function runAndKill(s: Setup, held: Promise<void>, fields: Record<string, unknown>): Promise<void> {
  const child: Child = spawnChild(s.script, [JSON.stringify({ kvPath: s.kvPath, ...fields })]);
  try {
    const died = child.waitFor(/(?!)/, 30_000).then((): never => {
      throw new Error("the child ended before the platform held its request");
    });
    await Promise.race([held, died]);
    await child.kill();
    assert.equal(child.lines.includes("done"), false, "the operation finished: nothing was killed in the middle");
  } finally {
    await child.kill();
  }
}

/** Every record has its two index entries, each an equal copy, and no index entry is left without its record. */
async function assertWhole(kv: Deno.Kv): Promise<void> {
  const under = async (prefix: string) => await Array.fromAsync(kv.list<Webhook>({ prefix: [prefix] }));
  const records = await under("webhook");
  const byTenant = await under("webhook_by_tenant");
  const byUrl = await under("webhook_by_url");
  assert.equal(byTenant.length, records.length, "tenant index entries without their record, or missing");
  assert.equal(byUrl.length, records.length, "URL index entries without their record, or missing");
  for (const { key, value } of records) {
    const id = key[1];
    assert.deepEqual(byTenant.filter((e) => e.key.at(-1) === id).map((e) => e.value), [value]);
    assert.deepEqual(byUrl.filter((e) => e.key.at(-1) === id).map((e) => e.value), [value]);
  }
}

/** Registers one hook from the parent and returns its record. */
async function oneHook(s: Setup): Promise<Webhook> {
  await s.hooks.register(s.community.name, ["document"], "/places/1", CALLBACK);
  const [record] = await s.hooks.findByTenantID(s.community.tenantId);
  return record;
}

function assertQuiet(report: Awaited<ReturnType<Webhooks["reconcile"]>>, matched: Webhook[]): void {
  assert.deepEqual(report.matched.map((r) => r.id).sort(), matched.map((r) => r.id).sort());
  assert.deepEqual(report.orphans, []);
  assert.deepEqual(report.dangling, []);
  assert.deepEqual(report.abandoned, []);
}

/** Records are whole, and reconcile({ fix }) then reports nothing but `matched` as matched. */
async function assertSettled(s: Setup, matched: Webhook[]): Promise<void> {
  await assertWhole(s.kv);
  assertQuiet(await s.hooks.reconcile(s.community, { fix: true, staleAfter: 0 }), matched);
}

Deno.test("unregister() killed while its DELETE is in flight leaves the hook and its record, and runs again", async () => {
  await withSetup(async (s) => {
    const record = await oneHook(s);
    await runAndKill(s, hold(s, "DELETE", "in flight"), { op: "unregister", id: record.id });
    assert.notEqual(await s.platform.hook(String(record.entity.id)), undefined);
    assert.deepEqual(await s.hooks.findByID(record.id), record);
    await assertSettled(s, [record]);

    s.platform.override = undefined;
    await s.hooks.unregister(record.id);
    assert.equal(await s.platform.hook(String(record.entity.id)), undefined);
    assert.equal(await s.hooks.findByID(record.id), null);
    await assertSettled(s, []);
  });
});

Deno.test("unregister() killed after the platform's DELETE leaves a dangling record that fix removes", async () => {
  await withSetup(async (s) => {
    const record = await oneHook(s);
    await runAndKill(s, hold(s, "DELETE", "after the platform acted"), { op: "unregister", id: record.id });
    assert.equal(await s.platform.hook(String(record.entity.id)), undefined);
    assert.deepEqual(await s.hooks.findByID(record.id), record);
    await assertWhole(s.kv);

    const look = await s.hooks.reconcile(s.community, { staleAfter: 0 });
    assert.deepEqual(look, { matched: [], orphans: [], dangling: [record] });
    const fixed = await s.hooks.reconcile(s.community, { fix: true, staleAfter: 0 });
    assert.deepEqual(fixed.dangling, [record]);
    assert.equal(await s.hooks.findByID(record.id), null);
    await assertSettled(s, []);

    // Run again after the fix: the record is gone, and the error says so.
    await assert.rejects(
      s.hooks.unregister(record.id),
      new Error(`Cannot unregister webhook: no webhook has the id ${JSON.stringify(record.id)}`),
    );
  });
});

Deno.test("unregister() killed after the platform's DELETE runs again: the platform's 404 counts as deleted", async () => {
  await withSetup(async (s) => {
    const record = await oneHook(s);
    await runAndKill(s, hold(s, "DELETE", "after the platform acted"), { op: "unregister", id: record.id });
    s.platform.beforeAnswer = undefined;
    await s.hooks.unregister(record.id);
    assert.equal(await s.hooks.findByID(record.id), null);
    await assertSettled(s, []);
  });
});

Deno.test("update() killed while its PUT is in flight leaves hook and record as they were, and runs again", async () => {
  await withSetup(async (s) => {
    const record = await oneHook(s);
    const before = await s.platform.hook(String(record.entity.id));
    await runAndKill(s, hold(s, "PUT", "in flight"), { op: "update", id: record.id, changes: { enabled: false } });
    assert.deepEqual(await s.platform.hook(String(record.entity.id)), before);
    assert.deepEqual(await s.hooks.findByID(record.id), record);
    await assertSettled(s, [record]);

    s.platform.override = undefined;
    const updated = await s.hooks.update(record.id, { enabled: false });
    assert.equal(updated.entity.enabled, false);
    assert.deepEqual((await s.hooks.findByID(record.id))?.entity, await s.platform.hook(String(record.entity.id)));
    await assertWhole(s.kv);
  });
});

/** Kills an update() that disables `record`'s hook after the platform took its PUT; the record still says enabled. */
async function killAfterPut(s: Setup, record: Webhook): Promise<void> {
  await runAndKill(s, hold(s, "PUT", "after the platform acted"), {
    op: "update",
    id: record.id,
    changes: { enabled: false },
  });
  assert.equal((await s.platform.hook(String(record.entity.id)))?.enabled, false);
  assert.deepEqual(await s.hooks.findByID(record.id), record);
  assert.notEqual(record.entity.enabled, false);
  s.platform.beforeAnswer = undefined;
}

// An update() that dies after the platform's PUT leaves a record older than the hook. The next update() of another
// field must not send the older fields back (it would enable the hook again behind its owner's back), and
// reconcile({ fix }) brings the record level (docs/webhooks-consistency.md, "Consistency").
Deno.test("update() killed after the platform's PUT: the next update() of another field keeps the platform's state", async () => {
  await withSetup(async (s) => {
    const record = await oneHook(s);
    await killAfterPut(s, record);
    const updated = await s.hooks.update(record.id, { events: ["document", "discussion"] });
    const onPlatform = await s.platform.hook(String(record.entity.id));
    assert.equal(onPlatform?.enabled, false, "the killed update's change was sent back");
    assert.deepEqual(updated.entity, onPlatform);
    assert.deepEqual(await s.hooks.findByID(record.id), updated);
    await assertSettled(s, [updated]);
  });
});

Deno.test("update() killed after the platform's PUT: reconcile({ fix }) reports the record matched and brings it level", async () => {
  await withSetup(async (s) => {
    const record = await oneHook(s);
    await killAfterPut(s, record);
    const report = await s.hooks.reconcile(s.community, { fix: true, staleAfter: 0 });
    assertQuiet(report, [record]);
    assert.deepEqual(report.matched, [record], "the report is the state found before fixing");
    const fixed = await s.hooks.findByID(record.id);
    assert.deepEqual(fixed?.entity, await s.platform.hook(String(record.entity.id)));
    assert.deepEqual({ ...fixed, entity: record.entity }, record, "only the entity changed");
    await assertSettled(s, [record]);
    assert.deepEqual(await s.hooks.findByID(record.id), fixed, "a second run has nothing left to do");
    await assertWhole(s.kv);
  });
});

const FIX_ALL = { fix: true, deleteUnknown: true, staleAfter: 0 };

Deno.test("reconcile({ fix }) killed while it reads the platform's list changes nothing; run again it converges", async () => {
  await withSetup(async (s) => {
    const drift: Drift = await makeDrift(s.kv, s.platform);
    await runAndKill(s, hold(s, "GET", "in flight"), { op: "reconcile", id: s.community.tenantId, options: FIX_ALL });
    assert.deepEqual(await s.hooks.findByTenantID(s.community.tenantId), [drift.matched, drift.dangling]);
    assert.equal((await s.hooks.pending(s.community.tenantId)).length, 1);
    assert.notEqual(await s.platform.hook(drift.unknownId), undefined);
    await assertWhole(s.kv);

    s.platform.override = undefined;
    const report = await s.hooks.reconcile(s.community, FIX_ALL);
    assert.deepEqual(report.dangling, [drift.dangling]);
    assert.deepEqual(report.orphans.map((o) => [o.entity.id, o.pending !== null]), [
      [drift.explainedId, true],
      [drift.unknownId, false],
    ]);
    await assertFixedOnce(s.kv, s.hooks, s.platform, drift, true);
    await assertWhole(s.kv);
  });
});

for (const moment of ["in flight", "after the platform acted"] as const) {
  Deno.test(`reconcile({ fix, deleteUnknown }) killed with its DELETE ${moment} leaves whole records; run again it converges`, async () => {
    await withSetup(async (s) => {
      const drift: Drift = await makeDrift(s.kv, s.platform);
      await runAndKill(s, hold(s, "DELETE", moment), { op: "reconcile", id: s.community.tenantId, options: FIX_ALL });
      await assertWhole(s.kv);
      // The explained orphan comes first in the platform's list: it was adopted before the DELETE.
      const records = await s.hooks.findByTenantID(s.community.tenantId);
      assert.equal(records.length, 3);
      const adopted = records.find((r) => String(r.entity.id) === drift.explainedId);
      assert.ok(adopted, "the explained orphan was not adopted");
      assert.deepEqual(await s.hooks.pending(s.community.tenantId), []);
      assert.equal((await s.platform.hook(drift.unknownId)) === undefined, moment !== "in flight");

      s.platform.override = undefined;
      s.platform.beforeAnswer = undefined;
      const look = await s.hooks.reconcile(s.community, { staleAfter: 0 });
      assert.deepEqual(look.matched.map((r) => r.id).sort(), [drift.matched.id, adopted.id].sort());
      assert.deepEqual(look.dangling, [drift.dangling]);
      assert.deepEqual(
        look.orphans,
        moment === "in flight" ? [{ entity: await s.platform.hook(drift.unknownId), pending: null }] : [],
      );
      await s.hooks.reconcile(s.community, FIX_ALL);
      await assertFixedOnce(s.kv, s.hooks, s.platform, drift, true);
      await assertWhole(s.kv);
    });
  });
}
