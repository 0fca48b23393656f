// A community's edit (new client secret and base URL) and its removal (with a
// hook and a "Forward to" destination under it), each answered by a console
// killed (kill -9) before the browser read the answer: both are one KV commit,
// so the kill leaves them whole or not begun. The same form sent again to a
// console restarted on the same KV file converges (the edit is saved once,
// its own rotation not taken for another's; the removal says it is done
// already), every page and the CLI read what is left, and no secret shows.

import assert from "node:assert/strict";
import { Client, csrfOf, parse, signIn } from "./_helpers.ts";
import { startLoggedConsole } from "./_logged_console.ts";
import { createRelay, createWebhooks } from "../../webhooks/mod.ts";

const SECRETS = ["old-client-secret", "new-client-secret", "stored-access-secret", "stored-refresh-secret"];

/** The edit form's fields as the page renders them, with `changes`. */
function formFields(html: string, changes: Record<string, string>): Record<string, string> {
  const page = parse(html);
  try {
    const fields: Record<string, string> = {};
    for (const input of page.document.querySelectorAll("form input")) {
      const { name, value, type } = input as HTMLInputElement;
      if (name && type !== "checkbox" && !(name in fields)) fields[name] = value;
    }
    return { ...fields, ...changes };
  } finally {
    page.close();
  }
}

/** Asserts that `paths` answer below 500 and show no secret. */
async function pagesRead(client: Client, paths: string[]): Promise<void> {
  for (const path of paths) {
    const response = await client.fetch(path);
    const text = await response.text();
    assert.ok(response.status < 500, `${path} answered ${response.status}`);
    for (const secret of SECRETS) assert.ok(!text.includes(secret), `${path} shows a secret`);
  }
}

Deno.test("a community's edit and removal sent again after the console that answered them was killed converge, and every page reads what is left", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  let hookId = "";
  {
    const kv = await Deno.openKv(kvPath);
    const webhooks = createWebhooks(kv);
    await webhooks.communities.save({
      name: "Acme",
      tenantId: "acme",
      baseUrl: "https://acme.example",
      clientId: "client-id",
      clientSecret: "old-client-secret",
      oauth: { access_token: "stored-access-secret", refresh_token: "stored-refresh-secret" },
    });
    hookId = "01J9Z3W6X4ABCDEFGHJKMNPQRS";
    const ref = "https://acme.example/api/core/v3/webhooks/7";
    await webhooks.save({
      id: hookId,
      tenantId: "acme",
      entity: { id: "7", events: ["user_account"], resources: { self: { ref } } },
    });
    const relay = createRelay(kv);
    await relay.destinations.add({ url: "https://app.example/in", hookIds: [hookId] });
    await relay.close();
    kv.close();
  }
  const logs: string[] = [];
  let running = await startLoggedConsole(kvPath);
  const restart = async () => {
    await running.kill();
    logs.push(running.log());
    running = await startLoggedConsole(kvPath);
  };
  try {
    const client = await signIn(running.url);
    const edit = formFields(await client.text("/communities/acme", 200), {
      baseUrl: "https://moved.acme.example",
      clientSecret: "new-client-secret",
    });
    const saved = await client.post("/communities/acme", edit);
    await saved.body?.cancel();
    assert.equal(saved.status, 303, "the first edit was saved");
    await restart(); // the answer is lost with the console: the user sends the form again
    const other = new Client(running.url);
    for (const [name, value] of client.cookies) other.cookies.set(name, value);
    const again = await other.post("/communities/acme", edit);
    const html = await again.text();
    assert.equal(again.status, 303, html.slice(0, 600));
    {
      const kv = await Deno.openKv(kvPath);
      const communities = createWebhooks(kv).communities;
      const community = await communities.findByTenantID("acme");
      assert.equal(community?.baseUrl, "https://moved.acme.example");
      assert.equal(community?.clientSecret, "new-client-secret");
      assert.equal(community?.oauth, undefined, "the tokens of the old address are forgotten");
      assert.notEqual(await communities.secretRotation("acme"), null, "the old secret keeps its overlap");
      kv.close();
    }
    await pagesRead(other, ["/communities", "/communities/acme", "/webhooks", `/webhooks/${hookId}`]);

    const csrf = csrfOf(await other.text("/communities/acme", 200));
    const removed = await other.post("/communities/acme/remove", { _csrf: csrf, confirm: "yes" });
    await removed.body?.cancel();
    assert.equal(removed.status, 303, "the first removal was done");
    await restart();
    const third = new Client(running.url);
    for (const [name, value] of other.cookies) third.cookies.set(name, value);
    const twice = await third.post("/communities/acme/remove", { _csrf: csrf, confirm: "yes" });
    const text = await twice.text();
    assert.equal(twice.status, 404, text.slice(0, 600));
    assert.match(text, /removed already/);
    await pagesRead(third, [
      "/communities",
      "/webhooks",
      `/webhooks/${hookId}`,
      `/webhooks/${hookId}/forward`,
      "/deliveries",
      "/reconcile",
    ]);
    const cli = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "webhooks/cli.ts", "hooks", "list"],
      cwd: new URL("../../", import.meta.url).pathname,
      env: { KV_PATH: kvPath, NO_COLOR: "1" },
    }).output();
    const out = new TextDecoder().decode(cli.stdout) + new TextDecoder().decode(cli.stderr);
    assert.equal(cli.code, 0, out);
    assert.match(out, new RegExp(hookId), "the hook's record is kept, and listed");
    for (const secret of SECRETS) assert.ok(!out.includes(secret), "the CLI shows a secret");
    await running.kill();
    logs.push(running.log());
    for (const secret of SECRETS) assert.ok(!logs.join("\n").includes(secret), "a secret is in the log");
  } finally {
    await running.kill();
    await Deno.remove(dir, { recursive: true });
  }
});
