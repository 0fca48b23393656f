// A URL the command line prints may carry credentials (a callback sent Basic
// auth as `https://user:secret@app.example/cb`, a token as a lone user name):
// tables, messages and JSON show the password or the lone name as `***`, as
// the console's pages do, and keep the rest.

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli/mod.ts";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, type Platform, startPlatform } from "../platform.ts";

const PASSWORD = "hunter2-cb-password";
const TOKEN = "tok-as-user-name";
const CALLBACK = `https://user:${PASSWORD}@app.example/cb`;
const SHOWN = "https://user:***@app.example/cb";

type Run = (argv: string[]) => Promise<{ code: number; out: string; err: string }>;

/** The sandbox platform, a KV file with its community "Acme", and the CLI run in-process on both. */
async function withCli(fn: (run: Run, platform: Platform, path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cli_shown_url_" });
  const platform = await startPlatform();
  const path = `${dir}/webhooks.kv`;
  try {
    const kv = await Deno.openKv(path);
    try {
      await createWebhooks(kv).communities.save(communityOf(platform));
    } finally {
      kv.close();
    }
    await fn(
      async (argv) => {
        const out: string[] = [];
        const err: string[] = [];
        const code = await main([...argv, "--kv", path], {
          stdout: (t) => out.push(t),
          stderr: (t) => err.push(t),
          env: (name) => ({ ACCESS_TOKEN: "good-token", REFRESH_TOKEN: "good-refresh" })[name],
        });
        return { code, out: out.join("\n"), err: err.join("\n") };
      },
      platform,
      path,
    );
  } finally {
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Asserts the run succeeded and printed neither secret. */
function clean(run: { code: number; out: string; err: string }, what: string): string {
  assert.equal(run.code, 0, `${what}: ${run.err}`);
  for (const secret of [PASSWORD, TOKEN]) {
    assert.ok(!run.out.includes(secret) && !run.err.includes(secret), `${what} printed ${secret}`);
  }
  return run.out;
}

Deno.test("cli hooks commands show a callback's password as *** and keep its user name, in tables and JSON", async () => {
  await withCli(async (run) => {
    const reg = JSON.parse(clean(
      await run([
        "hooks",
        "register",
        "--community",
        "Acme",
        "--events",
        "user_account",
        "--callback",
        CALLBACK,
        "--json",
      ]),
      "hooks register --json",
    ));
    assert.equal(reg.entity.callback, SHOWN);
    assert.equal(reg.record.entity.callback, SHOWN);
    const id: string = reg.record.id;
    const ref: string = reg.record.entity.resources.self.ref;

    assert.ok(clean(await run(["hooks", "list"]), "hooks list").includes(SHOWN));
    const listed = JSON.parse(clean(await run(["hooks", "list", "--json"]), "hooks list --json"));
    assert.deepEqual(listed.map((h: { entity: { callback: string } }) => h.entity.callback), [SHOWN]);
    assert.equal(
      JSON.parse(clean(await run(["hooks", "find", "--id", id, "--json"]), "find --id")).entity.callback,
      SHOWN,
    );
    assert.equal(
      JSON.parse(clean(await run(["hooks", "find", "--url", ref, "--json"]), "find --url"))[0].entity.callback,
      SHOWN,
    );
    assert.ok(clean(await run(["hooks", "find", "--id", id]), "hooks find --id").includes(SHOWN));

    const gone = JSON.parse(clean(await run(["hooks", "unregister", id, "--json"]), "hooks unregister --json"));
    assert.equal(gone.unregistered.entity.callback, SHOWN);
  });
});

Deno.test("cli reconcile shows the callbacks of orphans and dangling records without their passwords", async () => {
  await withCli(async (run, platform, path) => {
    await platform.addHook({ events: ["user_account"], callback: CALLBACK });
    const kv = await Deno.openKv(path);
    try {
      const entity = {
        id: "gone",
        callback: `https://${TOKEN}@app.example/cb`,
        resources: { self: { ref: `${platform.url}/api/core/v3/webhooks/gone` } },
      };
      await createWebhooks(kv).save({ id: "r-gone", tenantId: "tenant-acme", entity });
    } finally {
      kv.close();
    }
    const report = JSON.parse(clean(await run(["reconcile", "Acme", "--json"]), "reconcile --json"));
    assert.deepEqual(report.orphans.map((o: { entity: { callback: string } }) => o.entity.callback), [SHOWN]);
    assert.deepEqual(report.dangling.map((h: { entity: { callback: string } }) => h.entity.callback), [
      "https://***@app.example/cb",
    ]);
    assert.ok(clean(await run(["reconcile", "Acme"]), "reconcile").includes("https://***@app.example/cb"));
  });
});

Deno.test("cli communities list and show mask a password in a stored community's base URL", async () => {
  await withCli(async (run, platform, path) => {
    const kv = await Deno.openKv(path);
    try {
      // save() refuses such a URL now; an earlier version stored it as written here.
      const other = { name: "Other", tenantId: "t-other", baseUrl: `https://admin:${PASSWORD}@other.example/` };
      await kv.atomic().set(["community", other.tenantId], other).set(["community_by_name", other.name], other.tenantId)
        .commit();
    } finally {
      kv.close();
    }
    const base = "https://admin:***@other.example/";
    assert.ok(clean(await run(["communities", "list"]), "communities list").includes(base));
    const all = JSON.parse(clean(await run(["communities", "list", "--json"]), "communities list --json"));
    assert.deepEqual(all.map((c: { baseUrl: string }) => c.baseUrl).sort(), [base, platform.url].sort());
    assert.ok(clean(await run(["communities", "show", "Other"]), "communities show").includes(base));
    assert.equal(JSON.parse(clean(await run(["communities", "show", "Other", "--json"]), "show --json")).baseUrl, base);
  });
});

Deno.test("cli --kv with a password in a path it cannot open names the path without the password", async () => {
  for (
    const path of [
      `https://user:${PASSWORD}@`,
      `http://user:${PASSWORD}@127.0.0.1:1/kv`,
      `/nonexistent/u:${PASSWORD}@x.kv`,
    ]
  ) {
    const err: string[] = [];
    const code = await main(["communities", "list", "--kv", path], {
      stdout: () => {},
      stderr: (t) => err.push(t),
      env: () => undefined,
    });
    assert.equal(code, 1, path);
    const text = err.join("\n");
    assert.match(text, /Cannot open the KV at/);
    assert.ok(!text.includes(PASSWORD), `${path}: ${text}`);
  }
});
