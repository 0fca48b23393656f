/**
 * `cli receive` with `OTEL_DENO=true` ends when Ctrl-C stops it. With Deno
 * 2.9, a process that calls `Deno.exit` while Deno's metrics reader waits for
 * the isolate's own metrics can hang for good in its exit; the shorter the
 * export interval, the likelier (measured: 19 hangs in 20 with 1 ms). The CLI
 * therefore ends on its own once its command returns; this test runs it with
 * a 1 ms interval, three times, and fails if it is still running after 5 s.
 */

import assert from "node:assert/strict";
import { startOtlpReceiver } from "../../otlp_receiver.ts";
import { endChild } from "../../_child.ts";

const ROOT = new URL("../../../", import.meta.url);

async function receiveThenInterrupt(env: Record<string, string>, kvPath: string): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", new URL("deno.json", ROOT).pathname, "webhooks/cli.ts", "receive", "--port", "0"],
    cwd: ROOT.pathname,
    env: { ...env, KV_PATH: kvPath },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const errLines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let ended;
  try {
    let seen = "";
    while (!seen.includes("Receiving postbacks on http://")) {
      const { done, value } = await errLines.read();
      assert.ok(!done, `no address in: ${seen}`);
      seen += value;
    }
    // Let the metrics reader run meanwhile: at 1 ms it is mid-export at almost any moment.
    await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    ended = await endChild(child, "SIGINT", 5_000);
    await errLines.cancel();
  }
  assert.equal(ended.killed, false, "still running 5 s after Ctrl-C");
  assert.equal(ended.status.code, 0);
}

Deno.test("cli receive with OTEL_DENO=true ends after Ctrl-C while metrics export every 1 ms", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_exit_" });
  const otlp = startOtlpReceiver();
  try {
    for (let run = 0; run < 3; run++) await receiveThenInterrupt(otlp.env(1), `${dir}/webhooks.kv`);
    assert.ok((otlp.exports()["/v1/metrics"] ?? 0) > 0, "the children exported metrics");
  } finally {
    await otlp.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("Ctrl-C during a CLI command waiting on the platform ends it at once with 130, also with OTEL_DENO=true", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_interrupt_" });
  const otlp = startOtlpReceiver();
  const release = Promise.withResolvers<void>();
  let reached = Promise.withResolvers<void>();
  // A platform that never answers until the test ends.
  const platform = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
    reached.resolve();
    await release.promise;
    return new Response("[]", { status: 503 });
  });
  const kvPath = `${dir}/webhooks.kv`;
  const run = (args: string[], env: Record<string, string>) =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--config", new URL("deno.json", ROOT).pathname, "webhooks/cli.ts", ...args, "--kv", kvPath],
      cwd: ROOT.pathname,
      env: { NO_COLOR: "1", ...env },
      stdout: "null",
      stderr: "piped",
    });
  try {
    const added = await run(
      ["communities", "add", "--name", "Acme", "--tenant", "t", "--base-url", `http://127.0.0.1:${platform.addr.port}`],
      { CLIENT_ID: "client-1", CLIENT_SECRET: btoa("secret"), ACCESS_TOKEN: "a", REFRESH_TOKEN: "r" },
    ).output();
    assert.equal(added.code, 0, new TextDecoder().decode(added.stderr));
    for (let i = 0; i < 3; i++) {
      reached = Promise.withResolvers<void>();
      const child = run(["reconcile", "Acme"], otlp.env(1)).spawn();
      const stderr = new Response(child.stderr).text();
      await reached.promise; // the command waits on the platform
      await new Promise((resolve) => setTimeout(resolve, 50));
      const ended = await endChild(child, "SIGINT", 5_000);
      assert.equal(ended.killed, false, "still running 5 s after Ctrl-C");
      assert.equal(ended.status.code, 130);
      assert.match(await stderr, /Interrupted/);
    }
  } finally {
    release.resolve();
    await platform.shutdown();
    await otlp.close();
    await Deno.remove(dir, { recursive: true });
  }
});
