// Process-level tests of Module A (issues 2 and 6): two processes sharing one
// KV file, and register() killed with SIGKILL at each of its steps, repaired
// by reconcile(). The children are real `deno run` processes.

import assert from "node:assert/strict";
import { type Community, createWebhooks, PlatformError, type Webhook, type Webhooks } from "../../webhooks/mod.ts";
import { type Child, spawnChild, WEBHOOKS_MOD, writeChildScript } from "./_child.ts";
import { type FileSetup, fileSetup } from "./_file_setup.ts";
import { communityOf, HIJACK, keysUnder, type Platform, startPlatform } from "./platform.ts";

const EVENTS = ["document"];
const OBJECT = "/places/1";
const CALLBACK = "https://app.example/hooks/acme";
const TENANTS = ["tenant-a", "tenant-b", "tenant-c"];
const SELF = "https://c.example/api/core/v3/webhooks/";

// Child: saves `count` records of its own and re-saves `shared` shared ids
// `rounds` times, all through createWebhooks(kv) on the shared file, once the
// parent says "go". It counts the "database is locked" errors Module A met
// (and retried) through a counting proxy of the Deno.Kv.
const SAVER = `
import { createWebhooks } from ${JSON.stringify(WEBHOOKS_MOD)};
const { kvPath, who, whoIndex, count, shared, rounds, tenants, self } = JSON.parse(Deno.args[0]);
const kv = await Deno.openKv(kvPath);
let locked = 0;
function counting(target) {
  const proxy = new Proxy(target, {
    get(t, name) {
      const value = Reflect.get(t, name, t);
      if (typeof value !== "function") return value;
      return (...args) => {
        const result = value.apply(t, args);
        if (result === t) return proxy;
        if (name === "atomic") return counting(result);
        if (result instanceof Promise) {
          return result.catch((error) => {
            if (/database is locked/i.test(String(error?.message))) locked++;
            throw error;
          });
        }
        return result;
      };
    },
  });
  return proxy;
}
const hooks = createWebhooks(counting(kv));
const tasks = [];
for (let n = 0; n < count; n++) {
  const id = who + "-" + n;
  tasks.push({ id, tenantId: tenants[n % tenants.length], entity: { id, resources: { self: { ref: self + id } } } });
}
for (let r = rounds - 1; r >= 0; r--) {
  const at = Math.floor(((r + 1) * count) / (rounds + 1));
  for (let k = 0; k < shared; k++) {
    const id = "shared-" + k;
    const ref = self + id + "-" + who + "-" + r;
    tasks.splice(at, 0, { id, tenantId: tenants[(k + whoIndex) % tenants.length], entity: { id, resources: { self: { ref } } } });
  }
}
console.log("ready");
let input = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  input += chunk;
  if (input.includes("go\\n")) break;
}
let next = 0;
async function worker() {
  while (next < tasks.length) await hooks.save(tasks[next++]);
}
await Promise.all([worker(), worker(), worker(), worker()]);
console.log("locked " + locked);
console.log("done");
kv.close();
`;

// Child: registers hooks through createWebhooks(kv) on the shared file and
// prints "registered <self ref>" after each. mode "exit" ends after `count`
// hooks; "hang" waits after one; "hang-before-request" gives register a fetch
// that prints "about-to-request" and never answers.
const REGISTER = `
import { createWebhooks } from ${JSON.stringify(WEBHOOKS_MOD)};
const { kvPath, mode, community, events, object, callback, count } = JSON.parse(Deno.args[0]);
const kv = await Deno.openKv(kvPath);
function hang() {
  setInterval(() => {}, 60_000);
  return new Promise(() => {});
}
const options = mode === "hang-before-request"
  ? { fetch: async () => { console.log("about-to-request"); return await hang(); } }
  : {};
const hooks = createWebhooks(kv, options);
for (let n = 0; n < (count ?? 1); n++) {
  const response = await hooks.register(community, events, object, count === undefined ? callback : callback + "/" + n);
  console.log("registered " + response.entity.resources.self.ref);
}
if (mode === "exit") {
  console.log("done");
  kv.close();
} else {
  await hang();
}
`;

/** The ids of records, sorted. */
function ids(records: Webhook[]): string[] {
  return records.map((record) => record.id).sort();
}

/** The self URL of a record. */
function refOf(record: Webhook): string {
  return record.entity.resources!.self!.ref!;
}

/** Rejects when the child's stdout ends (it died) before `promise` settles. */
function unlessChildDies<T>(promise: Promise<T>, child: Child): Promise<T> {
  const death = child.waitFor(/(?!)/).then((): never => {
    throw new Error("unreachable");
  });
  return Promise.race([promise, death]);
}

/** A KV file in a temp dir with the community of the sandbox platform saved in it, and the REGISTER script. */
function registerSetup(): Promise<FileSetup> {
  return fileSetup("webhooks_processes_", "register.js", REGISTER);
}

function registerArgs(setup: FileSetup, fields: Record<string, unknown>): string[] {
  return [JSON.stringify({
    kvPath: setup.kvPath,
    community: setup.community.name,
    events: EVENTS,
    object: OBJECT,
    callback: CALLBACK,
    ...fields,
  })];
}

/** A fresh in-memory KV, the sandbox platform and its community, closed after `fn`. */
async function withMemory(
  fn: (hooks: Webhooks, platform: Platform, community: Community, kv: Deno.Kv) => Promise<void>,
): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const platform = await startPlatform();
  try {
    const hooks = createWebhooks(kv);
    const community: Community = communityOf(platform);
    await hooks.communities.save(community);
    await fn(hooks, platform, community, kv);
  } finally {
    await platform.close();
    kv.close();
  }
}

function assertNothingToDo(report: Awaited<ReturnType<Webhooks["reconcile"]>>, matched: string[]): void {
  assert.deepEqual(ids(report.matched), [...matched].sort());
  assert.deepEqual(report.orphans, []);
  assert.deepEqual(report.dangling, []);
  assert.deepEqual(report.abandoned, []);
}

Deno.test("save() from two processes on one KV file keeps every record and index entry consistent", async () => {
  const dir = await Deno.makeTempDir({ prefix: "webhooks_processes_" });
  const kvPath = `${dir}/kv.sqlite3`;
  const count = 200;
  const shared = 5;
  const rounds = 3;
  const script = await writeChildScript(dir, "saver.js", SAVER);
  const whos = ["A", "B"];
  const children = whos.map((who, whoIndex) =>
    spawnChild(
      script,
      [JSON.stringify({ kvPath, who, whoIndex, count, shared, rounds, tenants: TENANTS, self: SELF })],
      {
        stdin: true,
      },
    )
  );
  let kv: Deno.Kv | undefined;
  try {
    // Both open the file and build their work first, then start together.
    await Promise.all(children.map((child) => child.waitFor("ready")));
    await Promise.all(children.map((child) => child.send("go")));
    let locked = 0;
    for (const child of children) {
      const { status, stderr } = await child.done();
      assert.equal(status.code, 0, `a saver failed: ${stderr}`);
      assert.ok(child.lines.includes("done"), child.lines.join(" | "));
      locked += Number(child.lines.find((line) => line.startsWith("locked "))!.slice(7));
    }
    // Proof that the two writers met the lock and Module A retried through it.
    assert.ok(locked > 0, "the two processes never met 'database is locked': the test did not exercise the retry");

    kv = await Deno.openKv(kvPath);
    const hooks = createWebhooks(kv);
    const total = whos.length * count + shared;
    assert.equal((await keysUnder(kv, ["webhook"])).length, total);
    // A stale index entry left by a re-save would show up as an extra key.
    assert.equal((await keysUnder(kv, ["webhook_by_tenant"])).length, total);
    assert.equal((await keysUnder(kv, ["webhook_by_url"])).length, total);

    const expected = new Map(TENANTS.map((tenant) => [tenant, new Set<string>()]));
    for (const who of whos) {
      for (let n = 0; n < count; n++) {
        const id = `${who}-${n}`;
        expected.get(TENANTS[n % TENANTS.length])!.add(id);
        const record = await hooks.findByID(id);
        assert.deepEqual(record, {
          id,
          tenantId: TENANTS[n % TENANTS.length],
          entity: { id, resources: { self: { ref: SELF + id } } },
        });
        assert.deepEqual(ids(await hooks.findByWebhookURL(SELF + id)), [id]);
      }
    }
    for (let k = 0; k < shared; k++) {
      const id = `shared-${k}`;
      const record = await hooks.findByID(id);
      assert.ok(record, `${id} is missing`);
      // The last save wins as a whole: its tenant and URL belong to the same save.
      const winner = whos.findIndex((who) => refOf(record).startsWith(`${SELF}${id}-${who}-`));
      assert.notEqual(winner, -1, `${id} has a URL nobody saved: ${refOf(record)}`);
      assert.equal(record.tenantId, TENANTS[(k + winner) % TENANTS.length]);
      expected.get(record.tenantId)!.add(id);
      for (const who of whos) {
        for (let r = 0; r < rounds; r++) {
          const ref = `${SELF}${id}-${who}-${r}`;
          assert.deepEqual(ids(await hooks.findByWebhookURL(ref)), ref === refOf(record) ? [id] : [], ref);
        }
      }
    }
    for (const tenant of TENANTS) {
      const found = await hooks.findByTenantID(tenant);
      assert.equal(found.length, expected.get(tenant)!.size, tenant);
      assert.deepEqual(ids(found), [...expected.get(tenant)!].sort());
    }
  } finally {
    await Promise.all(children.map((child) => child.kill()));
    kv?.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("register() in one process is readable at once from another process on the same KV file", async () => {
  const setup = await registerSetup();
  const count = 12;
  const child = spawnChild(setup.script, registerArgs(setup, { mode: "exit", count }));
  try {
    const { hooks, community } = setup;
    let running = true;
    const finished = child.done().finally(() => running = false);
    const counts: number[] = [];
    let checked = 0;
    while (running) {
      const announced = child.lines.filter((line) => line.startsWith("registered ")).map((line) => line.slice(11));
      const records = await hooks.findByTenantID(community.tenantId);
      // Whatever the other process reported as registered is already stored.
      assert.ok(records.length >= announced.length, `${records.length} records, ${announced.length} announced`);
      for (const record of records) assert.deepEqual(await hooks.findByID(record.id), record);
      for (const ref of announced.slice(checked)) {
        const found = await hooks.findByWebhookURL(ref);
        assert.equal(found.length, 1, ref);
        assert.equal(found[0].tenantId, community.tenantId);
      }
      checked = announced.length;
      counts.push(records.length);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const { status, stderr } = await finished;
    assert.equal(status.code, 0, stderr);
    assert.deepEqual(counts, [...counts].sort((a, b) => a - b), "a reader saw a record disappear");
    const records = await hooks.findByTenantID(community.tenantId);
    assert.equal(records.length, count);
    assert.deepEqual(
      records.map(refOf).sort(),
      child.lines.filter((line) => line.startsWith("registered ")).map((line) => line.slice(11)).sort(),
    );
    assert.deepEqual(await hooks.pending(community.tenantId), []);
    assertNothingToDo(await hooks.reconcile(community), ids(records));
  } finally {
    await child.kill();
    await setup.close();
  }
});

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

Deno.test("reconcile() reports a hook deleted on the platform as dangling and fix removes its record", async () => {
  await withMemory(async (hooks, platform, community, kv) => {
    const kept = await hooks.register(community.name, EVENTS, OBJECT, `${CALLBACK}/kept`);
    const gone = await hooks.register(community.name, EVENTS, OBJECT, `${CALLBACK}/gone`);
    const [keptRecord] = await hooks.findByWebhookURL(kept.entity.resources!.self!.ref!);
    const goneRef = gone.entity.resources!.self!.ref!;
    const [goneRecord] = await hooks.findByWebhookURL(goneRef);
    await platform.removeHook(gone.entity.id!);

    const look = await hooks.reconcile(community);
    assert.deepEqual(ids(look.matched), [keptRecord.id]);
    assert.deepEqual(look.dangling, [goneRecord]);
    assert.deepEqual(await hooks.findByID(goneRecord.id), goneRecord, "a report without fix changed the store");

    const report = await hooks.reconcile(community, { fix: true });
    assert.deepEqual(ids(report.matched), [keptRecord.id]);
    assert.deepEqual(report.dangling, [goneRecord]);
    assert.deepEqual(report.orphans, []);
    assert.equal(await hooks.findByID(goneRecord.id), null);
    assert.deepEqual(await hooks.findByWebhookURL(goneRef), []);
    assert.deepEqual(ids(await hooks.findByTenantID(community.tenantId)), [keptRecord.id]);
    assert.equal((await keysUnder(kv, ["webhook_by_url"])).length, 1);
    assert.equal((await keysUnder(kv, ["webhook_by_tenant"])).length, 1);

    assertNothingToDo(await hooks.reconcile(community, { fix: true }), [keptRecord.id]);
  });
});

Deno.test("reconcile() deletes an unexplained orphan on the platform only with deleteUnknown", async () => {
  await withMemory(async (hooks, platform, community, kv) => {
    const stranger = await platform.addHook({
      events: EVENTS,
      object: OBJECT,
      callback: "https://elsewhere.example/cb",
    });
    const id = stranger.id as string;

    const report = await hooks.reconcile(community, { fix: true, staleAfter: 0 });
    assert.deepEqual(report.orphans, [{ entity: stranger, pending: null }]);
    assert.ok((await platform.hook(id)) !== undefined);
    assert.equal(platform.requests("DELETE").length, 0);
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);

    const deleting = await hooks.reconcile(community, { fix: true, deleteUnknown: true, staleAfter: 0 });
    assert.deepEqual(deleting.orphans, [{ entity: stranger, pending: null }]);
    assert.equal((await platform.hook(id)) !== undefined, false);
    assert.deepEqual(platform.requests("DELETE").map((seen) => seen.path), [`/api/core/v3/webhooks/${id}`]);
    assert.deepEqual(await keysUnder(kv, ["webhook"]), []);

    assertNothingToDo(await hooks.reconcile(community, { fix: true, deleteUnknown: true, staleAfter: 0 }), []);
  });
});

/** Puts `n` hooks on the platform, each with its local record. */
async function manyHooks(hooks: Webhooks, platform: Platform, community: Community, n: number) {
  const saved: string[] = [];
  for (let i = 0; i < n; i++) {
    const entity = await platform.addHook({ events: EVENTS, object: OBJECT, callback: `${CALLBACK}/${i}` });
    const id = `hook-${String(i).padStart(3, "0")}`;
    await hooks.save({ id, tenantId: community.tenantId, entity });
    saved.push(id);
  }
  return saved;
}

/** The startIndex of each page of `total` hooks, 25 a page (the platform's default); the first URL has no query. */
function pageStarts(total: number): (string | null)[] {
  return Array.from({ length: Math.ceil(total / 25) }, (_, i) => i === 0 ? null : String(i * 25));
}

Deno.test("reconcile() asks for GET {base}/api/core/v3/webhooks and follows every links.next page", async () => {
  await withMemory(async (hooks, platform, community) => {
    const saved = await manyHooks(hooks, platform, community, 250);
    assertNothingToDo(await hooks.reconcile(community, { fix: true, deleteUnknown: true }), saved);
    const gets = platform.requests("GET", "/api/core/v3/webhooks");
    assert.equal(gets[0].search, "");
    const pages = gets.map((seen) => new URLSearchParams(seen.search));
    assert.deepEqual(pages.map((query) => query.get("startIndex")), pageStarts(250));
    assert.equal(platform.requests("DELETE").length, 0);
  });
});

Deno.test("reconcile() renews the tokens on a 401 in the middle of paging and stores them on the community", async () => {
  await withMemory(async (hooks, platform, community) => {
    const saved = await manyHooks(hooks, platform, community, 250);
    let refused = false;
    platform.override = async (req, url) => {
      if (refused || req.method !== "GET" || url.searchParams.get("startIndex") !== "100") return undefined;
      refused = true;
      await platform.revokeToken("good-token"); // expired from now on
      return new Response(HIJACK + JSON.stringify({ error: { status: 401, message: "Token expired" } }), {
        status: 401,
        headers: { "Content-Type": "application/json" },
      });
    };

    assertNothingToDo(await hooks.reconcile(community), saved);
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    const pages = platform.requests("GET", "/api/core/v3/webhooks");
    const starts = pageStarts(250);
    const refusedAt = starts.indexOf("100");
    assert.deepEqual(
      pages.map((seen) => new URLSearchParams(seen.search).get("startIndex")),
      [...starts.slice(0, refusedAt + 1), ...starts.slice(refusedAt)],
    );
    assert.deepEqual(
      pages.map((seen) => seen.authorization),
      pages.map((_, i) => i <= refusedAt ? "Bearer good-token" : `Bearer ${platform.issued[0].access_token}`),
    );
    const stored = await hooks.communities.findByTenantID(community.tenantId);
    assert.deepEqual(stored?.oauth, platform.issued[0]);
    assert.equal(typeof stored?.renewedAt, "string");
  });
});

// Known bug (reported): register() deletes its pending entry on any failed
// request, also a time-out or a broken answer after which the platform may
// well have created the hook. That hook is then an orphan nothing explains:
// reconcile() cannot adopt it and only deleteUnknown (which also deletes other
// clients' hooks) removes it.
Deno.test({
  name: "register() that times out after the platform created the hook keeps its pending entry for reconcile()",
  async fn() {
    const kv = await Deno.openKv(":memory:");
    const platform = await startPlatform();
    const release = Promise.withResolvers<void>();
    platform.afterCreate = () => release.promise; // the answer comes after the time-out
    try {
      const hooks = createWebhooks(kv, { timeout: 200 });
      const community: Community = communityOf(platform);
      await hooks.communities.save(community);
      await assert.rejects(
        hooks.register(community.name, EVENTS, OBJECT, CALLBACK),
        (error) => error instanceof PlatformError && error.status === 0,
      );
      const [entity] = await platform.listHooks();
      assert.equal((await platform.listHooks()).length, 1);
      const pending = await hooks.pending(community.tenantId);
      assert.equal(pending.length, 1, "the pending entry that explains the hook was deleted");

      const report = await hooks.reconcile(community, { fix: true, staleAfter: 0 });
      assert.deepEqual(report.orphans, [{ entity, pending: pending[0] }]);
      const ref = `${platform.url}/api/core/v3/webhooks/${entity.id}`;
      assert.equal((await hooks.findByWebhookURL(ref)).length, 1);
      assert.deepEqual(await hooks.pending(community.tenantId), []);
    } finally {
      release.resolve();
      await platform.close();
      kv.close();
    }
  },
});

// Known bug (reported), same cause: a 2xx answer that is not JSON also
// deletes the pending entry, though the platform made the hook (a 2xx answer
// without an entity already keeps it).
Deno.test({
  name: "register() whose 2xx answer is not JSON keeps its pending entry for reconcile()",
  async fn() {
    const kv = await Deno.openKv(":memory:");
    const platform = await startPlatform();
    platform.override = async (req, url) => {
      if (req.method !== "POST" || url.pathname !== "/api/core/v3/webhooks") return undefined;
      await platform.addHook({ events: EVENTS, object: OBJECT, callback: CALLBACK });
      return new Response("<html>Gateway says OK</html>", { status: 200, headers: { "Content-Type": "text/html" } });
    };
    try {
      const hooks = createWebhooks(kv);
      const community: Community = communityOf(platform);
      await hooks.communities.save(community);
      await assert.rejects(
        hooks.register(community.name, EVENTS, OBJECT, CALLBACK),
        (error) => error instanceof PlatformError && error.status === 200,
      );
      const [entity] = await platform.listHooks();
      const pending = await hooks.pending(community.tenantId);
      assert.equal(pending.length, 1, "the pending entry that explains the hook was deleted");
      const report = await hooks.reconcile(community, { fix: true, staleAfter: 0 });
      assert.deepEqual(report.orphans, [{ entity, pending: pending[0] }]);
      assert.equal((await hooks.findByTenantID(community.tenantId)).length, 1);
    } finally {
      await platform.close();
      kv.close();
    }
  },
});

// Known bug (reported): a registration that runs longer than staleAfter (a
// slow platform, lock retries, or a `timeout` option above staleAfter) can
// have its hook adopted by reconcile(); register() then saves a second record
// for the same hook, because its save does not check that its pending entry
// still exists.
Deno.test({
  name: "register() that outlives staleAfter while reconcile() adopts its hook leaves one record, not two",
  async fn() {
    const kv = await Deno.openKv(":memory:");
    const platform = await startPlatform();
    const created = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    platform.afterCreate = () => {
      created.resolve();
      return release.promise;
    };
    try {
      const hooks = createWebhooks(kv);
      const community: Community = communityOf(platform);
      await hooks.communities.save(community);
      const registering = hooks.register(community.name, EVENTS, OBJECT, CALLBACK);
      await created.promise;
      await new Promise((resolve) => setTimeout(resolve, 60));
      const report = await hooks.reconcile(community, { fix: true, staleAfter: 50 });
      assert.equal(report.orphans.length, 1);
      assert.notEqual(report.orphans[0].pending, null);
      release.resolve();
      const response = await registering;
      const records = await hooks.findByWebhookURL(response.entity.resources!.self!.ref!);
      assert.equal(records.length, 1, `${records.length} records for one hook`);
      assertNothingToDo(await hooks.reconcile(community, { fix: true }), ids(records));
    } finally {
      release.resolve();
      await platform.close();
      kv.close();
    }
  },
});
