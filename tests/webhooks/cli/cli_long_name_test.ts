// A --name too long for KV to key the community by is the user's mistake in typing the command, as a --tenant too
// long is: a usage error (exit 2) naming --name. It failed as an operation (exit 1) in KV's words, "one of its keys
// is longer than the 2048 bytes KV allows", which names neither the flag nor the field.

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli/mod.ts";

Deno.test("communities add: a --name too long for a KV key is a usage error naming --name", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_long_name_" });
  try {
    const lines: string[] = [];
    const argv = [
      "communities",
      "add",
      "--name",
      "n".repeat(3000),
      "--tenant",
      "t1",
      "--base-url",
      "https://a.example",
    ];
    const code = await main([...argv, "--kv", `${dir}/webhooks.kv`], {
      stdout: (t) => lines.push(t),
      stderr: (t) => lines.push(t),
      env: () => undefined,
    });
    const out = lines.join("\n");
    assert.equal(code, 2, out);
    assert.match(out, /^Error: --name is too long/m);
    assert.match(out, /communities add --name NAME --tenant ID --base-url URL/, "the command's usage follows");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
