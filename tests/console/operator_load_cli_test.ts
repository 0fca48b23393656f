// The CLI run against the console's KV file while the console takes the
// platform's postbacks (16 at once): every command finishes as it would on
// an idle file (no "database is locked" reaches the operator), and the
// console goes on serving: no 500, every 200 stored once.

import assert from "node:assert/strict";
import { withHook } from "./_helpers.ts";
import { lostOrDoubled, operatorCli, storedTitles, tally, underLoad } from "./_operator_load.ts";

/** The secret the CLI rotates to. */
const NEW = btoa("a secret the operator rotates to mid-load");

Deno.test("the CLI's commands on the console's KV file while postbacks flow all succeed, and the console serves on", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  try {
    await withHook(async (t, hook) => {
      const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
      const failures: string[] = [];
      const wave = async (...commands: string[][]) => {
        const results = await Promise.all(commands.map((args) => operatorCli(kvPath, ...args)));
        results.forEach(({ code, stderr }, i) => {
          if (code !== 0) failures.push(`${commands[i].join(" ")}: ${code} ${stderr.trim()}`);
        });
      };
      const act = (async () => {
        const name = community.name;
        const base = ["--tenant", community.tenantId, "--base-url", community.baseUrl!];
        await wave(["communities", "list"], ["hooks", "list"], ["migrate"], ["relay", "destinations"]);
        await wave(["reconcile", name, "--fix"], [
          "communities",
          "add",
          "--name",
          name,
          ...base,
          "--client-secret",
          NEW,
        ]);
        await wave(["migrate"], ["reconcile", name, "--fix"]);
        await wave(["hooks", "find", "--id", hook.id], ["relay", "dead-letters"], ["communities", "show", name]);
      })();
      const answers = await underLoad({ ...hook, community, until: act, tag: "cli", tailMs: 500 });
      await act;
      await t.app.deliveries.flush();
      const counts = tally(answers);
      assert.deepEqual(failures, [], JSON.stringify(counts));
      assert.deepEqual(lostOrDoubled(answers, await storedTitles(t.app.deliveries, "cli")), [], JSON.stringify(counts));
      assert.deepEqual(Object.keys(counts), ["200"], JSON.stringify(counts));
    }, { kv: await Deno.openKv(kvPath), deliveries: { retain: 100_000 } });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Runs `commands` at once on the console's KV while postbacks flow; the answers and each command's outcome. */
async function twoOperators(
  tag: string,
  commands: (hookId: string, name: string) => string[][],
  refused: number,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  try {
    await withHook(async (t, hook) => {
      const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
      const runs = commands(hook.id, community.name);
      let results: { code: number; stderr: string }[] = [];
      const act = (async () => {
        await new Promise((r) => setTimeout(r, 500));
        results = await Promise.all(runs.map((args) => operatorCli(kvPath, ...args)));
      })();
      const answers = await underLoad({ ...hook, community, until: act, tag, tailMs: 800 });
      await act;
      await t.app.deliveries.flush();
      const counts = tally(answers);
      const ok = results.filter((r) => r.code === 0).length;
      assert.ok(ok >= 1, results.map((r) => r.stderr).join("\n"));
      for (const r of results) {
        assert.ok(r.code === 0 || !/locked|\n\s+at /.test(r.stderr), `an unexplained failure: ${r.stderr}`);
      }
      assert.deepEqual(lostOrDoubled(answers, await storedTitles(t.app.deliveries, tag)), [], JSON.stringify(counts));
      assert.deepEqual(Object.keys(counts).sort(), ["200", String(refused)], JSON.stringify(counts));
    }, { kv: await Deno.openKv(kvPath), deliveries: { retain: 100_000 } });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("two operators unregister the hook at once with the CLI while its postbacks flow: each 200 stored, the rest 404", async () => {
  await twoOperators("cli-unreg", (id) => [["hooks", "unregister", id], ["hooks", "unregister", id]], 404);
});

Deno.test("two operators remove the community at once with the CLI while its postbacks flow: each 200 stored, the rest 401", async () => {
  await twoOperators("cli-gone", (_, name) => [["communities", "remove", name], ["communities", "remove", name]], 401);
});

Deno.test("the previous secret revoked with the CLI while postbacks signed with it flow: refused after, none lost", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  try {
    await withHook(async (t, hook) => {
      const before = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
      await t.app.webhooks.communities.save({ ...before, clientSecret: NEW });
      const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
      let revokedAt = 0;
      let result = { code: -1, stderr: "" };
      const act = (async () => {
        await new Promise((r) => setTimeout(r, 500));
        result = await operatorCli(kvPath, "communities", "revoke-previous-secret", community.name);
        revokedAt = Date.now();
      })();
      const previous = before.clientSecret as string;
      const answers = await underLoad({ ...hook, community, previous, until: act, tag: "cli-rev", tailMs: 800 });
      await act;
      await t.app.deliveries.flush();
      const counts = tally(answers);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(
        lostOrDoubled(answers, await storedTitles(t.app.deliveries, "cli-rev")),
        [],
        JSON.stringify(counts),
      );
      assert.ok(answers.filter((a) => !a.previous).every((a) => a.status === 200), JSON.stringify(counts));
      const late = answers.filter((a) => a.previous && a.sent > revokedAt);
      assert.ok(
        late.length > 0 && late.every((a) => a.status === 401),
        "the previous secret verifies after the revoke",
      );
      assert.ok(answers.some((a) => a.previous && a.status === 200), JSON.stringify(counts));
    }, { kv: await Deno.openKv(kvPath), deliveries: { retain: 100_000 } });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
