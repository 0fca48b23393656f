// A console killed (kill -9) while it saves a hook's events: the platform
// took the PUT and holds its answer, so the console never stores it. After a
// restart on the same KV file, the pages and the CLI read the record, and the
// user's retry of the same form leaves the platform and the record alike,
// with the events asked for; no token reaches a page or the log.

import assert from "node:assert/strict";
import { Client, csrfOf, signIn } from "./_helpers.ts";
import { seedHeldHook, startHeldPlatform } from "./_held_platform.ts";
import { startLoggedConsole } from "./_logged_console.ts";
import { createWebhooks } from "../../webhooks/mod.ts";

const SECRETS = ["first-access-secret", "first-refresh-secret", "client-secret-value"];

/** The hook's events on the record, the index copy (by URL) and the CLI's list, as read from the KV file. */
async function storedEvents(kvPath: string, id: string): Promise<{ record: unknown; byUrl: unknown; cli: string }> {
  const kv = await Deno.openKv(kvPath);
  try {
    const webhooks = createWebhooks(kv);
    const record = await webhooks.findByID(id);
    const ref = (record?.entity?.resources as { self?: { ref?: string } } | undefined)?.self?.ref ?? "";
    const byUrl = (await webhooks.findByWebhookURL(ref)).find((w) => w.id === id);
    const cli = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "webhooks/cli.ts", "hooks", "list", "--json"],
      cwd: new URL("../../", import.meta.url).pathname,
      env: { KV_PATH: kvPath, NO_COLOR: "1" },
    }).output();
    assert.equal(cli.code, 0, new TextDecoder().decode(cli.stderr));
    return { record: record?.entity?.events, byUrl: byUrl?.entity?.events, cli: new TextDecoder().decode(cli.stdout) };
  } finally {
    kv.close();
  }
}

Deno.test("a hook's events saved again after the console died with the platform's answer unread end alike on the platform and in every copy of the record", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  const platform = startHeldPlatform("first-access-secret", "first-refresh-secret");
  const id = (await seedHeldHook(kvPath, platform)).id;
  let killed = await startLoggedConsole(kvPath);
  const logs: string[] = [];
  try {
    const client = await signIn(killed.url);
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    const fields = { _csrf: csrf, events: ["user_account", "user_session"], object: "" };
    const acted = platform.hold("put");
    const first = client.post(`/webhooks/${id}/events`, fields).catch((err) => err);
    await acted;
    await killed.kill();
    logs.push(killed.log());
    assert.ok(await first instanceof Error, "the killed console gave no answer");
    platform.release();
    assert.deepEqual(platform.hooks.get("1")?.events, ["user_account", "user_session"], "the platform took the PUT");

    // Restarted on the same file: the record is whole (the old events), the pages and the CLI read it.
    killed = await startLoggedConsole(kvPath);
    const again = await signIn(killed.url, new Client(killed.url));
    const before = await storedEvents(kvPath, id);
    assert.deepEqual(before.record, before.byUrl, "the record and its index copy agree");
    assert.match(before.cli, new RegExp(id));
    for (const page of ["/webhooks", `/webhooks/${id}`, "/communities/held", "/reconcile"]) {
      const response = await again.fetch(page);
      const text = await response.text();
      assert.ok(response.status < 500, `${page} answered ${response.status}`);
      for (const secret of SECRETS) assert.ok(!text.includes(secret), `${page} shows a secret`);
    }

    // The user sends the form again: it converges to what was asked, on the platform and in every copy.
    const csrf2 = csrfOf(await again.text(`/webhooks/${id}`, 200));
    const retry = await again.post(`/webhooks/${id}/events`, { ...fields, _csrf: csrf2 });
    const html = await retry.text();
    assert.equal(retry.status, 303, html.slice(0, 400));
    assert.match(retry.headers.get("location") ?? "", /notice=events-saved/);
    const after = await storedEvents(kvPath, id);
    assert.deepEqual(after.record, ["user_account", "user_session"]);
    assert.deepEqual(after.byUrl, after.record, "the record and its index copy agree");
    assert.deepEqual(platform.hooks.get("1")?.events, ["user_account", "user_session"]);
    assert.match(after.cli, /user_session/);
    await killed.kill();
    logs.push(killed.log());
    for (const secret of SECRETS) assert.ok(!logs.join("\n").includes(secret), "a secret is in the log");
  } finally {
    await killed.kill();
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
});
