// Hostile renewal across processes on one KV file, with a platform that
// rotates refresh tokens (accepting each once): many calls in several
// processes refused together, and a lease holder whose clock runs seconds
// behind the others'. Every call must succeed with one renewal.

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { type Child, spawnChild } from "../_child.ts";
import { expiredCommunityOf, expiredRefusals, type Platform, startPlatform, until } from "../platform.ts";

const CHILD = fileURLToPath(new URL("./_renewal_child.ts", import.meta.url));

interface ChildArgs {
  callback: string;
  timeout?: number;
  count?: number;
  skewMs?: number;
}

/** Runs `fn` with a rotating platform, a KV file holding the expired community, and the children it starts. */
async function withProcesses(
  fn: (ctx: { platform: Platform; kv: Deno.Kv; start: (args: ChildArgs) => Promise<Child> }) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir();
  const platform = await startPlatform({ tokens: [] });
  const children: Child[] = [];
  const kvPath = `${dir}/shared.sqlite`;
  const kv = await Deno.openKv(kvPath);
  try {
    await createWebhooks(kv).communities.save(expiredCommunityOf(platform));
    await fn({
      platform,
      kv,
      async start(args) {
        const child = spawnChild(CHILD, [JSON.stringify({ kvPath, op: "register", timeout: 10_000, ...args })], {
          stdin: true,
        });
        children.push(child);
        await child.waitFor("ready", 30_000);
        return child;
      },
    });
  } finally {
    for (const child of children) await child.kill();
    kv.close();
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("twelve calls in three processes and this one, refused together, renew a rotating refresh token once", async () => {
  await withProcesses(async ({ platform, kv, start }) => {
    // The token endpoint answers once most calls met the 401 (or after 3 s): they all wait on one renewal.
    platform.override = async (req, url) => {
      if (req.method === "POST" && url.pathname === "/oauth2/token") {
        await until(() => expiredRefusals(platform) >= 10, 3_000, "the calls to meet the 401").catch(() => {});
      }
      return undefined;
    };
    const children = await Promise.all(
      ["a", "b", "c"].map((name) => start({ callback: `https://me.example/${name}`, count: 3 })),
    );
    const hooks = createWebhooks(kv, { timeout: 10_000 });
    const here = Array.from(
      { length: 3 },
      (_, i) =>
        hooks.register("Acme", ["document"], "https://c.example/api/core/v3/places/42", `https://me.example/p/${i}`),
    );
    await Promise.all(children.map((child) => child.send("go")));
    const lines = await Promise.all(children.map((child) => child.waitFor(/^(done|failed) /, 30_000)));
    const results = await Promise.allSettled(here);
    assert.deepEqual(lines.map((line) => line.split(" ")[0]), ["done", "done", "done"], lines.join(" | "));
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "fulfilled", "fulfilled"]);
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
    assert.deepEqual((await hooks.communities.findByTenantID("tenant-acme"))?.oauth, platform.issued[0]);
    assert.equal((await hooks.findByTenantID("tenant-acme")).length, 12);
    assert.equal((await Array.fromAsync(kv.list({ prefix: ["community_renewal"] }))).length, 0);
  });
});

Deno.test("a lease holder whose clock runs 10 s behind keeps its lease: the other process waits for its pair", async () => {
  await withProcesses(async ({ platform, start }) => {
    // A lease of 8 s, shorter than the skew: by the waiter's clock it ran out 2 s before it was taken. (A time-out of
    // 1 s left the waiter 0.5 s to meet its 401 before the holder's renewal timed out; 0.6 s is enough to miss it.)
    const timeout = 3_000;
    let holderAsked = false;
    // The holder's renewal is answered 0.5 s after the waiter met the 401, within its time-out and its lease.
    platform.override = async (req, url) => {
      if (req.method !== "POST" || url.pathname !== "/oauth2/token" || holderAsked) return undefined;
      holderAsked = true;
      await until(() => expiredRefusals(platform) >= 2, 10_000, "the waiter's 401").catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 500));
      return undefined;
    };
    const holder = await start({ callback: "https://me.example/holder", timeout, skewMs: -10_000 });
    const waiter = await start({ callback: "https://me.example/waiter", timeout });
    await holder.send("go");
    await until(() => platform.requests("POST", "/oauth2/token").length === 1, 20_000, "the holder's renewal");
    await waiter.send("go");
    const lines = await Promise.all([
      holder.waitFor(/^(done|failed) /, 30_000),
      waiter.waitFor(/^(done|failed) /, 30_000),
    ]);
    assert.deepEqual(lines.map((line) => line.split(" ")[0]), ["done", "done"], lines.join(" | "));
    assert.equal(platform.requests("POST", "/oauth2/token").length, 1);
  });
});
