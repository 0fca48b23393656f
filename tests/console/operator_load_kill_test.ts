// The CLI killed (SIGKILL) mid-command on the console's KV file while the
// console takes the platform's postbacks (16 at once): the console goes on
// serving (no 500, every 200 stored once), and the command run again
// finishes.

import assert from "node:assert/strict";
import { withHook } from "./_helpers.ts";
import { CLI, lostOrDoubled, operatorCli, storedTitles, tally, underLoad } from "./_operator_load.ts";
import type { Webhook } from "../../webhooks/mod.ts";

/**
 * Writes `records` as the earlier layout did (its index entries hold only the record's id), plus `extra` records of
 * another tenant, so that `migrate` has some work to be killed in.
 */
async function writeOldLayout(kv: Deno.Kv, records: Webhook[], extra: number): Promise<void> {
  const all = [...records];
  for (let i = 0; i < extra; i++) {
    const ref = `https://c.example/api/core/v3/webhooks/${i}`;
    all.push({ id: `h${String(i).padStart(6, "0")}`, tenantId: "t-other", entity: { resources: { self: { ref } } } });
  }
  for (let i = 0; i < all.length; i += 100) {
    const op = kv.atomic();
    for (const record of all.slice(i, i + 100)) {
      op.set(["webhook", record.id], record).set(["webhook_by_tenant", record.tenantId, record.id], record.id);
      op.set(["webhook_by_url", record.entity.resources!.self!.ref!, record.id], record.id);
    }
    assert.ok((await op.commit()).ok);
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts the CLI on `kvPath`; kills it with SIGKILL after `killAfterMs` unless it ended first. */
async function killed(kvPath: string, killAfterMs: number, ...args: string[]): Promise<Deno.CommandStatus> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "--kv", kvPath, ...args],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* ended already */ }
  }, killAfterMs);
  const status = await child.status;
  clearTimeout(timer);
  return status;
}

Deno.test("migrate killed mid-run on the console's KV while postbacks flow: none lost, and migrate run again finishes", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  try {
    await withHook(async (t, hook) => {
      const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
      // The KV as an earlier version left it: the hook and many others in the pointer layout.
      await writeOldLayout(t.kv, [(await t.app.webhooks.findByID(hook.id))!], 4000);
      const kills: number[] = [];
      const act = (async () => {
        for (const ms of [250, 400, 600]) {
          kills.push((await killed(kvPath, ms, "migrate")).code);
          await pause(100);
        }
      })();
      const answers = await underLoad({ ...hook, community, until: act, tag: "mig", tailMs: 500 });
      await act;
      await t.app.deliveries.flush();
      const counts = tally(answers);
      assert.deepEqual(lostOrDoubled(answers, await storedTitles(t.app.deliveries, "mig")), [], JSON.stringify(counts));
      assert.deepEqual(Object.keys(counts), ["200"], JSON.stringify({ counts, kills }));
      const again = await operatorCli(kvPath, "migrate");
      assert.equal(again.code, 0, again.stderr);
      assert.equal((await t.app.webhooks.findByID(hook.id))?.id, hook.id);
      assert.equal((await t.app.webhooks.findByWebhookURL(hook.ref)).length, 1);
    }, { kv: await Deno.openKv(kvPath), deliveries: { retain: 100_000 } });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("hooks unregister killed mid-run while postbacks flow: none lost, no 500, and run again it finishes", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  try {
    await withHook(async (t, hook) => {
      const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
      let code = -1;
      const act = (async () => {
        await pause(300);
        code = (await killed(kvPath, 350, "hooks", "unregister", hook.id)).code;
      })();
      const answers = await underLoad({ ...hook, community, until: act, tag: "unk", tailMs: 500 });
      await act;
      await t.app.deliveries.flush();
      const counts = tally(answers);
      assert.deepEqual(lostOrDoubled(answers, await storedTitles(t.app.deliveries, "unk")), [], JSON.stringify(counts));
      assert.ok(Object.keys(counts).every((s) => s === "200" || s === "404"), JSON.stringify({ counts, code }));
      const again = await operatorCli(kvPath, "hooks", "unregister", hook.id);
      assert.ok(again.code === 0 || /no webhook|not found|gone/i.test(again.stderr), again.stderr);
      assert.equal(await t.app.webhooks.findByID(hook.id), null);
    }, { kv: await Deno.openKv(kvPath), deliveries: { retain: 100_000 } });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
