// Token renewal shared across processes: two `deno run` children on one KV
// (a file, or a KV Connect server over one) meet a 401 together with the
// community's stored tokens; the platform (the sandbox) rotates refresh
// tokens and accepts each once. One renewal must serve both. And a lease
// holder killed mid-renewal must not block the other process for longer than
// the lease.

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { type Child, spawnChild } from "../_child.ts";
import { expiredCommunityOf, expiredRefusals, type Platform, startPlatform, until } from "../platform.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";

const CHILD = fileURLToPath(new URL("./_renewal_child.ts", import.meta.url));

/** The shared KV of a test: a file opened directly, or the same file behind a KV Connect server. */
interface SharedKv {
  kv: Deno.Kv;
  childArgs: { kvPath: string; kvToken?: string };
  close(): Promise<void>;
}

async function openShared(dir: string, remote: boolean): Promise<SharedKv> {
  const path = `${dir}/shared.sqlite`;
  if (!remote) {
    const kv = await Deno.openKv(path);
    return { kv, childArgs: { kvPath: path }, close: () => Promise.resolve(kv.close()) };
  }
  const server = await startKvConnectServer({ path, token: TEST_TOKEN });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const kv = await Deno.openKv(server.url);
  return {
    kv,
    childArgs: { kvPath: server.url, kvToken: TEST_TOKEN },
    async close() {
      kv.close();
      await server.close();
    },
  };
}

/** Runs `fn` with a rotating platform, a shared KV holding the expired community, and the children it starts. */
async function withProcesses(
  remote: boolean,
  fn: (ctx: {
    platform: Platform;
    kv: Deno.Kv;
    start: (op: "register" | "reconcile", callback: string, timeout?: number) => Promise<Child>;
  }) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  const platform = await startPlatform({ tokens: [] });
  const children: Child[] = [];
  let shared: SharedKv | undefined;
  try {
    shared = await openShared(dir, remote);
    await createWebhooks(shared.kv).communities.save(expiredCommunityOf(platform));
    const args = shared.childArgs;
    await fn({
      platform,
      kv: shared.kv,
      async start(op, callback, timeout = 10_000) {
        const child = spawnChild(CHILD, [JSON.stringify({ ...args, op, callback, timeout })], { stdin: true });
        children.push(child);
        await child.waitFor("ready", 30_000);
        return child;
      },
    });
  } finally {
    for (const child of children) await child.kill();
    await shared?.close();
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
}

for (const remote of [false, true]) {
  const over = remote ? "over KV Connect" : "on one KV file";
  Deno.test(`two processes ${over} that meet a 401 together renew a rotating refresh token once, and both succeed`, async () => {
    await withProcesses(remote, async ({ platform, kv, start }) => {
      // The token endpoint answers only once both processes met the 401: without sharing, both would send the one
      // refresh token, and the platform would refuse the second.
      platform.override = async (req, url) => {
        if (req.method === "POST" && url.pathname === "/oauth2/token") {
          await until(() => expiredRefusals(platform) >= 2, 10_000, "both processes to meet the 401").catch(() => {});
        }
        return undefined;
      };
      const a = await start("register", "https://me.example/hook/a");
      const b = await start(remote ? "reconcile" : "register", "https://me.example/hook/b");
      await Promise.all([a.send("go"), b.send("go")]);
      const lines = await Promise.all([a.waitFor(/^(done|failed) /), b.waitFor(/^(done|failed) /)]);
      assert.deepEqual(lines.map((line) => line.split(" ")[0]), ["done", "done"], lines.join(" | "));
      assert(expiredRefusals(platform) >= 2, "both processes met the 401");
      assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
      assert.equal(platform.issued.length, 1);
      const hooks = createWebhooks(kv);
      assert.deepEqual((await hooks.communities.findByTenantID("tenant-acme"))?.oauth, platform.issued[0]);
      assert.equal((await hooks.findByTenantID("tenant-acme")).length, remote ? 1 : 2);
      // No lease is left behind.
      assert.equal((await Array.fromAsync(kv.list({ prefix: ["community_renewal"] }))).length, 0);
    });
  });
}

Deno.test("a lease holder killed mid-renewal blocks the other process only until the lease runs out", async () => {
  await withProcesses(false, async ({ platform, kv, start }) => {
    const tokenPosts: number[] = [];
    let releaseHeld!: () => void;
    const held = new Promise<void>((resolve) => releaseHeld = resolve);
    // The first renewal is held open (the holder is killed while it waits); later ones are answered.
    platform.override = async (req, url) => {
      if (req.method !== "POST" || url.pathname !== "/oauth2/token") return undefined;
      tokenPosts.push(Date.now());
      if (tokenPosts.length > 1) return undefined;
      await held;
      return Response.json({ error: "temporarily_unavailable" }, { status: 503 });
    };
    try {
      const timeout = 3_000;
      const holder = await start("register", "https://me.example/hook/holder", timeout);
      const waiter = await start("register", "https://me.example/hook/waiter", timeout);
      await holder.send("go");
      await until(() => tokenPosts.length === 1, 20_000, "the holder's renewal");
      // The lease names its owner and its end, and holds no token.
      const lease = (await kv.get<Record<string, unknown>>(["community_renewal", "tenant-acme"])).value;
      assert.deepEqual(Object.keys(lease ?? {}).sort(), ["owner", "until"]);
      assert(!/expired|good-refresh/.test(JSON.stringify(lease)));
      await waiter.send("go");
      await until(() => expiredRefusals(platform) >= 2, 20_000, "the waiter's 401");
      // The waiter finds the lease held and waits for it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await holder.kill();
      const killedAt = Date.now();
      const line = await waiter.waitFor(/^(done|failed) /, 30_000);
      assert.match(line, /^done registered /);
      assert.equal(tokenPosts.length, 2);
      // The waiter renewed only after the holder was gone, and within the lease (time-out plus a margin).
      assert(tokenPosts[1] >= killedAt, `the waiter renewed ${killedAt - tokenPosts[1]} ms before the holder died`);
      assert(tokenPosts[1] - tokenPosts[0] < timeout + 8_000, "the waiter waited longer than the lease");
      const hooks = createWebhooks(kv);
      assert.deepEqual((await hooks.communities.findByTenantID("tenant-acme"))?.oauth, platform.issued[0]);
      assert.equal((await hooks.findByTenantID("tenant-acme")).length, 1);
    } finally {
      releaseHeld();
    }
  });
});
