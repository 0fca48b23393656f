// Two processes sharing one KV file (issue 2): saves from both keep every
// record and index entry consistent, and a hook one registers is readable at
// once from the other. The children are real `deno run` processes.

import assert from "node:assert/strict";
import { createWebhooks } from "../../webhooks/mod.ts";
import { spawnChild, WEBHOOKS_MOD, writeChildScript } from "./_child.ts";
import { keysUnder } from "./platform.ts";
import { assertNothingToDo, ids, refOf, registerArgs, registerSetup } from "./_processes.ts";

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
