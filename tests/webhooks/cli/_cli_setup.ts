// The set-up the command line's process tests share: the CLI run as a
// subprocess, a temporary KV file with the community "Acme" added, the
// secrets no output may hold, and a register killed mid-way.

import assert from "node:assert/strict";
import { type Platform, startPlatform } from "../platform.ts";
import { main } from "../../../webhooks/cli.ts";

export const ROOT = new URL("../../../", import.meta.url).pathname;
export const SECRET = "client-s3cret-value";
export const ACCESS = "good-token";
export const REFRESH = "good-refresh";

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in a subprocess: `deno run -A webhooks/cli.ts`, or `deno task cli` with `task`. */
export async function cli(
  args: string[],
  options: { env?: Record<string, string>; task?: boolean } = {},
): Promise<Run> {
  const command = options.task ? ["task", "-q", "cli", ...args] : ["run", "-A", "webhooks/cli.ts", ...args];
  const out = await new Deno.Command(Deno.execPath(), {
    args: command,
    cwd: ROOT,
    env: { NO_COLOR: "1", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** A temporary KV file and the sandbox platform whose community "Acme" the CLI added. */
export async function withSetup(fn: (kv: string, platform: Platform) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cli_test_" });
  const platform = await startPlatform({ clientSecret: SECRET });
  try {
    const kv = `${dir}/webhooks.kv`;
    const added = await cli(addAcme(kv, platform.url), { env: { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH } });
    assert.equal(added.code, 0, added.stderr);
    noSecrets(added);
    await fn(kv, platform);
  } finally {
    await platform.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * The command line that adds the community "Acme" (tenant `tenant-acme`, client `client-1`) on the platform at
 * `baseUrl` to the KV at `kv`; with its client secret unless `secret` is false (its tokens come from the environment).
 */
export function addAcme(kv: string, baseUrl: string, secret = true): string[] {
  return [
    ...["communities", "add", "--kv", kv, "--name", "Acme", "--tenant", "tenant-acme", "--base-url", baseUrl],
    ...["--client-id", "client-1", ...(secret ? ["--client-secret", SECRET] : [])],
  ];
}

/** The command line that registers a `user_account` hook of "Acme" in the KV at `kv`; its callback and options follow. */
export function registerAcmeHook(kv: string): string[] {
  return ["hooks", "register", "--kv", kv, "--community", "Acme", "--events", "user_account"];
}

/** Fails when `run` printed a secret of the set-up. */
export function noSecrets(run: Run): void {
  for (const secret of [SECRET, ACCESS, REFRESH]) {
    assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret), `${secret} printed`);
  }
}

/** Two commands that call the platform for the community "Acme" (each needs its access token). */
export const ACME_PLATFORM_CALLS: string[][] = [
  ["reconcile", "Acme"],
  ["hooks", "register", "--community", "Acme", "--events", "user_account", "--callback", "https://me.example/h"],
];

/** The self URL of the hook `seedAcmeHook` stores. */
export const ACME_HOOK_REF = "https://acme.example/api/core/v3/webhooks/7";

/** Stores hook `h7` of tenant `tenant-acme` (with its URL and tenant index entries) in the KV file at `path`. */
export async function seedAcmeHook(path: string): Promise<void> {
  const db = await Deno.openKv(path);
  const record = { id: "h7", tenantId: "tenant-acme", entity: { resources: { self: { ref: ACME_HOOK_REF } } } };
  await db.atomic().set(["webhook", "h7"], record)
    .set(["webhook_by_url", ACME_HOOK_REF, "h7"], "h7").set(["webhook_by_tenant", "tenant-acme", "h7"], "h7").commit();
  db.close();
}

/** Runs the CLI with its stdout or stderr closed before it writes; resolves with its status and the other stream. */
export async function withClosed(
  stream: "stdout" | "stderr",
  args: string[],
): Promise<{ code: number; other: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "webhooks/cli.ts", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  await child[stream].cancel(); // the reader is gone
  const other = await new Response(child[stream === "stdout" ? "stderr" : "stdout"]).text();
  const { code } = await child.status;
  return { code, other };
}

/**
 * Starts `hooks register` of "Acme" to `callback` in a child and kill -9s it (or Ctrl-Cs it) once the platform has
 * made the hook, its answer held; the platform then has that one hook.
 */
export async function killedRegister(
  kv: string,
  platform: Platform,
  callback: string,
  signal: "SIGKILL" | "SIGINT" = "SIGKILL",
): Promise<void> {
  const arrived = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  platform.beforeAnswer = async (req) => {
    if (req.method !== "POST" || !new URL(req.url).pathname.endsWith("/api/core/v3/webhooks")) return;
    arrived.resolve();
    await release.promise;
  };
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "webhooks/cli.ts", ...registerAcmeHook(kv), "--callback", callback],
    cwd: ROOT,
    env: { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  try {
    await arrived.promise;
    child.kill(signal);
    const ended = await child.output();
    if (signal === "SIGKILL") assert.equal(ended.signal, "SIGKILL");
    else assert.equal(ended.code, 130, new TextDecoder().decode(ended.stderr));
  } finally {
    release.resolve();
    platform.beforeAnswer = undefined;
  }
  assert.equal((await platform.listHooks()).length, 1);
}

/** What an in-process run of the CLI printed, and its status. */
export interface MainRun {
  code: number;
  out: string;
  err: string;
}

/** Runs the CLI's `main` in this process with the set-up's tokens (in-process: two at once interleave their reads). */
export async function runMain(args: string[]): Promise<MainRun> {
  const out: string[] = [];
  const err: string[] = [];
  const env: Record<string, string> = { ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH };
  const code = await main(args, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: (n) => env[n] });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/**
 * Runs `args` (a `hooks register`) twice at once through {@linkcode runMain}, the platform holding each registering
 * POST until the other command has returned or has posted too: both runs, and how many POSTs the platform got.
 */
export async function registerTwiceAtOnce(
  platform: Platform,
  args: string[],
): Promise<{ runs: MainRun[]; posts: number }> {
  let posts = 0;
  const second = Promise.withResolvers<void>();
  const oneReturned = Promise.withResolvers<void>();
  platform.beforeAnswer = async (req) => {
    if (req.method !== "POST" || !new URL(req.url).pathname.endsWith("/api/core/v3/webhooks")) return;
    if (++posts === 2) second.resolve();
    await Promise.race([second.promise, oneReturned.promise]);
  };
  try {
    const both = [runMain(args), runMain(args)];
    for (const one of both) one.then(() => oneReturned.resolve(), () => oneReturned.resolve());
    return { runs: await Promise.all(both), posts };
  } finally {
    platform.beforeAnswer = undefined;
  }
}
