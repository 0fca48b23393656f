// A --client-secret too large for KV to store the community (one value holds 64 KiB) failed as an operation (exit
// 1) in KV's words, naming no flag. It is a usage error (exit 2) naming the flag, and the secret is never echoed.

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli/mod.ts";

Deno.test("communities add: a --client-secret too large for a KV value is a usage error naming the flag", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_large_value_" });
  try {
    const lines: string[] = [];
    const secret = "s".repeat(99_990) + "SECRETEND";
    const argv = ["communities", "add", "--name", "n", "--tenant", "t1", "--base-url", "https://a.example"];
    const code = await main([...argv, "--client-secret", secret, "--kv", `${dir}/webhooks.kv`], {
      stdout: (t) => lines.push(t),
      stderr: (t) => lines.push(t),
      env: () => undefined,
    });
    const out = lines.join("\n");
    assert.equal(code, 2, out.slice(0, 500));
    assert.match(out, /^Error: --client-secret is too long/m);
    assert.ok(!out.includes("SECRETEND"), "the secret is never echoed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
