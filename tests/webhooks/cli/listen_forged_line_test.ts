/**
 * `listen` prints one line per attempt, whatever the hook id of its entry: a
 * webhook record whose id was edited by hand (or written by another tool) to
 * hold a line break, an ESC sequence and the text of a second attempt line
 * gets one line, its control characters written as escapes, as the other
 * commands print stored names. Run as a user runs it, as a child process.
 */

import assert from "node:assert/strict";
import { createRelay, createWebhooks } from "../../../webhooks/mod.ts";
import { postback, startApp, until, writeAll } from "../relay/fixtures.ts";
import { endChild } from "../../_child.ts";
import { ROOT } from "./_cli_setup.ts";

Deno.test("listen prints an attempt of a hook whose stored id holds a line break and ESC on one line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "listen_forged_" });
  const path = `${dir}/webhooks.kv`;
  const kv = await Deno.openKv(path);
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  const forged = "h1\u001b[2J\r\n2026-01-01 00:00:00  h9  200     1 ms  msg_01J00000000000000000000000";
  try {
    const hooks = createWebhooks(kv);
    await hooks.communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://acme.example" });
    const ref = "https://acme.example/api/core/v3/webhooks/1";
    await hooks.save({ id: forged, tenantId: "t1", entity: { resources: { self: { ref } } } });
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "webhooks/cli.ts", "listen", "--forward-to", app.url, "--kv", path],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let out = "";
    const reading = child.stdout.pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({ write: (chunk) => void (out += chunk) }),
    );
    const err = new Response(child.stderr).text();
    try {
      await until(async () => (await relay.destinations.list()).some((d) => d.pinned), 10_000, "listen's destination");
      await writeAll(kv, relay.write, [postback(forged)]);
      await app.waitFor(1);
      // The forged id holds one " ms  msg_", the attempt's own line the other.
      await until(() => out.split(" ms  msg_").length > 2 && out.endsWith("\n"), 10_000, "the attempt's line");
    } finally {
      await endChild(child, "SIGINT");
      await reading;
    }
    const lines = out.split("\n").filter(Boolean);
    assert.equal(lines.length, 1, `one attempt, one line: ${JSON.stringify(out)}`);
    assert.ok(lines[0].includes("h1\\u001b[2J\\r\\n2026-01-01"), lines[0]);
    assert.ok(!(await err).includes("    at "), await err);
  } finally {
    await relay.close();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
