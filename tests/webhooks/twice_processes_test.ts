// Module A's state-changing operations run twice at once from two processes
// on one KV file: the command line's `hooks unregister ID` and `reconcile NAME
// --fix`, update() and migrate(). The platform (the sandbox on 127.0.0.1) holds the two
// processes' requests until both arrived, so they overlap, not left to timing.

import assert from "node:assert/strict";
import { createWebhooks, type Webhook } from "../../webhooks/mod.ts";
import { keysUnder, type Platform, startPlatform } from "./platform.ts";
import { assertFixedOnce, makeDrift } from "./_drift.ts";
import { assertCopiesMatch, fixtureRecords, indexForms, writeOldLayout } from "./_old_layout.ts";
import { spawnChild, WEBHOOKS_MOD, writeChildScript } from "./_child.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the command line in a subprocess, as a user does. */
async function cli(args: string[]): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "webhooks/cli.ts", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** Holds the platform's answers to `method` requests on `path` until two arrived (or 15 s passed). */
function holdUntilTwo(platform: Platform, method: string, path: string): void {
  const both = Promise.withResolvers<void>();
  let seen = 0;
  platform.override = async (req, url) => {
    if (req.method !== method || !url.pathname.startsWith(path)) return undefined;
    if (++seen === 2) both.resolve();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([both.promise, new Promise((resolve) => timer = setTimeout(resolve, 15_000))]);
    clearTimeout(timer);
    return undefined;
  };
}

/** A temporary KV file and a platform, both gone afterwards. */
async function withFile(fn: (path: string, platform: Platform) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "twice_processes_" });
  const platform = await startPlatform();
  try {
    await fn(`${dir}/webhooks.kv`, platform);
  } finally {
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs `fn` on the KV file, closed afterwards. */
async function onKv<T>(path: string, fn: (kv: Deno.Kv) => Promise<T>): Promise<T> {
  const kv = await Deno.openKv(path);
  try {
    return await fn(kv);
  } finally {
    kv.close();
  }
}

Deno.test("cli: `hooks unregister ID` run twice at once from two processes removes the hook and its record, and both succeed", async () => {
  await withFile(async (path, platform) => {
    const record = await onKv(path, async (kv) => (await makeDrift(kv, platform)).matched);
    holdUntilTwo(platform, "DELETE", "/api/core/v3/webhooks/");
    const runs = await Promise.all([1, 2].map(() => cli(["hooks", "unregister", record.id, "--kv", path])));
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    assert.equal(platform.requests("DELETE").length, 2, "the two processes did not overlap");
    assert.equal(await platform.hook(String(record.entity.id)), undefined);
    await onKv(path, async (kv) => {
      const hooks = createWebhooks(kv);
      assert.equal(await hooks.findByID(record.id), null);
      assert.deepEqual(await hooks.findByWebhookURL(record.entity.resources!.self!.ref!), []);
      assert.equal((await keysUnder(kv, ["webhook_by_tenant"])).length, 1, "the dangling record's entry alone");
    });
  });
});

for (const deleteUnknown of [false, true]) {
  const flags = deleteUnknown ? ["--fix", "--delete-unknown"] : ["--fix"];
  Deno.test(`cli: \`reconcile NAME ${flags.join(" ")}\` run twice at once from two processes fixes each drift once`, async () => {
    await withFile(async (path, platform) => {
      const drift = await onKv(path, async (kv) => {
        const made = await makeDrift(kv, platform);
        // The killed registration is older than reconcile's staleAfter (60 s).
        for await (const entry of kv.list<{ startedAt: number }>({ prefix: ["webhook_pending"] })) {
          await kv.set(entry.key, { ...entry.value, startedAt: entry.value.startedAt - 120_000 });
        }
        return made;
      });
      holdUntilTwo(platform, "GET", "/api/core/v3/webhooks");
      const runs = await Promise.all([1, 2].map(() => cli(["reconcile", "Acme", ...flags, "--kv", path, "--json"])));
      for (const run of runs) {
        assert.equal(run.code, 0, run.stderr);
        assert.equal(JSON.parse(run.stdout).orphans.length, 2, "a run did not see the drift: they did not overlap");
      }
      await onKv(path, (kv) => assertFixedOnce(kv, createWebhooks(kv), platform, drift, deleteUnknown));
    });
  });
}

// Each child holds after its first commit that went through until told to go on, so the two overlap however
// fast one of them is: left alone, one could migrate every entry before the other listed any.
const MIGRATOR = `
import { createWebhooks } from ${JSON.stringify(WEBHOOKS_MOD)};
const kv = await Deno.openKv(Deno.args[0]);
const input = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
let buffered = "";
async function line() {
  while (!buffered.includes("\\n")) {
    const { value, done } = await input.read();
    if (done) throw new Error("stdin ended");
    buffered += value;
  }
  const end = buffered.indexOf("\\n");
  const text = buffered.slice(0, end);
  buffered = buffered.slice(end + 1);
  return text;
}
const atomic = kv.atomic.bind(kv);
let held = false;
kv.atomic = () => {
  const op = atomic();
  const commit = op.commit.bind(op);
  op.commit = async () => {
    const result = await commit();
    if (result.ok && !held) {
      held = true;
      console.log("committed");
      await line();
    }
    return result;
  };
  return op;
};
const hooks = createWebhooks(kv);
console.log("ready");
await line();
console.log(JSON.stringify(await hooks.migrate()));
kv.close();
`;

Deno.test("migrate() run at once from two processes on one KV file leaves each index entry once, as a copy", async () => {
  const dir = await Deno.makeTempDir({ prefix: "twice_migrate_" });
  const path = `${dir}/old.kv`;
  const records: Webhook[] = fixtureRecords(3000, 4);
  const children = [];
  try {
    await onKv(path, (kv) => writeOldLayout(kv, records));
    const script = await writeChildScript(dir, "migrate.js", MIGRATOR);
    children.push(spawnChild(script, [path], { stdin: true }), spawnChild(script, [path], { stdin: true }));
    await Promise.all(children.map((child) => child.waitFor("ready")));
    await Promise.all(children.map((child) => child.send("go")));
    await Promise.all(children.map((child) => child.waitFor("committed")));
    await Promise.all(children.map((child) => child.send("on")));
    const reports = [];
    for (const child of children) {
      const { status, stderr } = await child.done();
      assert.equal(status.code, 0, stderr);
      reports.push(JSON.parse(child.lines.at(-1)!));
    }
    assert.ok(reports.every((report) => report.migrated > 0), "the two processes did not overlap");
    // Each pointer is migrated by one of the two, never by both, and none is left.
    assert.equal(reports[0].migrated + reports[1].migrated, 6000);
    await onKv(path, async (kv) => {
      assert.equal((await indexForms(kv)).pointers, 0);
      assert.equal(await assertCopiesMatch(kv), 3000);
      assert.equal((await keysUnder(kv, ["webhook_by_tenant"])).length, 3000);
      assert.equal((await keysUnder(kv, ["webhook_by_url"])).length, 3000);
      const hooks = createWebhooks(kv);
      assert.equal((await hooks.findByTenantID("t3")).length, 750);
      const last = records.at(-1)!;
      assert.deepEqual((await hooks.findByWebhookURL(last.entity.resources!.self!.ref!)).map((r) => r.id), [last.id]);
    });
  } finally {
    await Promise.all(children.map((child) => child.kill()));
    await Deno.remove(dir, { recursive: true });
  }
});

const UPDATER = `
import { createWebhooks } from ${JSON.stringify(WEBHOOKS_MOD)};
const [path, id, changes] = Deno.args;
const kv = await Deno.openKv(path);
const hooks = createWebhooks(kv);
console.log("ready");
for await (const _ of Deno.stdin.readable) break;
const saved = await hooks.update(id, JSON.parse(changes));
console.log(JSON.stringify(saved.entity));
kv.close();
`;

Deno.test("update() of one hook at once from two processes with different changes: both apply, and the record is the platform's hook", async () => {
  await withFile(async (path, platform) => {
    const record = await onKv(path, async (kv) => (await makeDrift(kv, platform)).matched);
    const script = await writeChildScript(path.slice(0, path.lastIndexOf("/")), "update.js", UPDATER);
    const changes = [{ enabled: false }, { callback: "https://receiver.example/hooks/moved" }];
    const children = changes.map((change) =>
      spawnChild(script, [path, record.id, JSON.stringify(change)], { stdin: true })
    );
    try {
      await Promise.all(children.map((child) => child.waitFor("ready")));
      // Both PUTs reach the platform before either is answered: each was built from the record as it was.
      holdUntilTwo(platform, "PUT", "/api/core/v3/webhooks/");
      await Promise.all(children.map((child) => child.send("go")));
      for (const child of children) {
        const { status, stderr } = await child.done();
        assert.equal(status.code, 0, stderr);
      }
    } finally {
      await Promise.all(children.map((child) => child.kill()));
    }
    const hook = (await platform.hook(String(record.entity.id)))!;
    assert.equal(hook.enabled, false, "the first change was lost");
    assert.equal(hook.callback, "https://receiver.example/hooks/moved", "the second change was lost");
    await onKv(path, async (kv) => {
      const stored = (await createWebhooks(kv).findByID(record.id))!;
      assert.equal(stored.entity.enabled, hook.enabled);
      assert.equal(stored.entity.callback, hook.callback);
      assert.deepEqual(await createWebhooks(kv).findByWebhookURL(record.entity.resources!.self!.ref!), [stored]);
    });
  });
});
