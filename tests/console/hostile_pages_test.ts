// Hostile or unlucky input to the console's pages outside Forward to: each test here failed on the code before its fix.

import assert from "node:assert/strict";
import { Client, startConsole } from "./_helpers.ts";

/** Runs `fn` and resolves with what it wrote through console.warn. */
async function warningsOf(fn: () => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(" "));
  try {
    await fn();
  } finally {
    console.warn = warn;
  }
  return warnings;
}

Deno.test("a sign-in callback's error code cannot forge log lines nor fill the log, and a valid code is still named", async () => {
  const t = await startConsole();
  try {
    /** Starts a sign-in as anyone can, then comes back with `error` and the sign-in's own state. */
    const callBackWith = async (error: string) => {
      const client = new Client(t.origin);
      const login = await client.fetch("/auth/login?returnTo=/");
      const state = new URL(login.headers.get("location")!).searchParams.get("state")!;
      await login.body?.cancel();
      const res = await client.fetch(`/auth/callback?${new URLSearchParams({ state, error })}`);
      await res.body?.cancel();
      assert.equal(res.status, 302);
      assert.equal(res.headers.get("location"), "/signin?error=1");
    };
    const forged = "x\n2026-11-28T00:00:00Z Console admin signed in\r\n" + "y".repeat(5000);
    const hostile = await warningsOf(() => callBackWith(forged));
    assert.equal(hostile.length, 1);
    assert.doesNotMatch(hostile[0], /[\r\n]/);
    assert.doesNotMatch(hostile[0], /admin signed in/);
    assert.ok(hostile[0].length < 200, `${hostile[0].length} characters logged`);
    const valid = await warningsOf(() => callBackWith("access_denied"));
    assert.deepEqual(valid, ["Sign-in failed: The provider refused: access_denied"]);
  } finally {
    await t.close();
  }
});
