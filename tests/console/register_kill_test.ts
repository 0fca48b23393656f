// Two console processes on one KV file, one killed (SIGKILL) while the
// platform holds its answer to a registration: the same form sent again to
// the other console must say what happened (the platform may have made the
// hook: reconcile adopts it), not to wait for a submission that will never
// end, and no page answers 500.

import assert from "node:assert/strict";
import { startProcess } from "../../scripts/load_processes.ts";
import { Client, registerFormFields, signIn } from "./_helpers.ts";
import { createWebhooks } from "../../webhooks/mod.ts";

/** A platform stand-in that makes each hook it is asked for, then holds its answer while `hold` is set. */
function holdingPlatform() {
  const hooks: Record<string, unknown>[] = [];
  let hold = true;
  let held = () => {};
  const released = new Promise<void>((resolve) => held = resolve);
  let posted = () => {};
  const firstPost = new Promise<void>((resolve) => posted = resolve);
  let base = "";
  const server: Deno.HttpServer<Deno.NetAddr> = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    async (req) => {
      const url = new URL(req.url);
      if (req.method === "POST" && url.pathname === "/api/core/v3/webhooks") {
        const body = await req.json();
        const id = String(hooks.length + 1);
        const entity: Record<string, unknown> = {
          id,
          ...body,
          enabled: true,
          resources: { self: { ref: `${base}/api/core/v3/webhooks/${id}` } },
        };
        hooks.push(entity);
        posted();
        if (hold) await released; // the killed console never reads this answer
        return Response.json(entity, { status: 201 });
      }
      if (req.method === "GET" && url.pathname === "/api/core/v3/webhooks") return Response.json({ list: hooks });
      return new Response("not found", { status: 404 });
    },
  );
  base = `http://127.0.0.1:${server.addr.port}`;
  return {
    server,
    hooks,
    firstPost,
    release() {
      hold = false;
      held();
    },
    base: () => base,
  };
}

Deno.test("a registration whose console was killed mid-way, sent again to the other console, says to reconcile and registers nothing twice", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  const platform = holdingPlatform();
  const seed = await Deno.openKv(kvPath);
  await createWebhooks(seed).communities.save({
    name: "Held",
    tenantId: "held",
    baseUrl: platform.base(),
    oauth: { access_token: "a", refresh_token: "r" },
  });
  seed.close();
  const env = { PORT: "0", HOST: "127.0.0.1", KV_PATH: kvPath, SANDBOX: "on", ALLOW_PRIVATE_NETWORK: "1" };
  const killed = await startProcess(["console/main.ts"], env);
  const survivor = await startProcess(["console/main.ts"], env);
  try {
    const client = await signIn(killed.url);
    const { _csrf, formToken } = await registerFormFields(client);
    const fields = { _csrf, formToken, tenantId: "held", events: ["user_account"], callback: "" };
    const first = client.post("/webhooks", fields).catch((err) => err);
    await platform.firstPost;
    await killed.kill();
    assert.ok(await first instanceof Error, "the killed console gave no answer");
    platform.release();

    // The browser sends the same form again, and the load balancer takes it to the other console.
    const other = new Client(survivor.url);
    for (const [name, value] of client.cookies) other.cookies.set(name, value);
    const resent = await other.post("/webhooks", fields);
    const html = await resent.text();
    assert.equal(resent.status, 409, html.slice(0, 300));
    assert.doesNotMatch(html, /wait a moment, then look for the webhook in the list/);
    assert.match(html, /the platform may have registered its webhook/i);
    assert.match(html, /Reconcile the community/);
    assert.equal(platform.hooks.length, 1, "the platform was asked for one hook only");

    // Reconcile adopts the hook the killed console left, once its registration is stale.
    const kv = await Deno.openKv(kvPath);
    try {
      const webhooks = createWebhooks(kv);
      const report = await webhooks.reconcile({ tenantId: "held" }, { fix: true, staleAfter: 0 });
      assert.equal(report.orphans.length, 1);
      assert.notEqual(report.orphans[0].pending, null, "the interrupted registration explains the orphan");
      assert.equal((await webhooks.findByTenantID("held")).length, 1);
    } finally {
      kv.close();
    }
  } finally {
    platform.release();
    await killed.kill();
    await survivor.stop();
    await platform.server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
