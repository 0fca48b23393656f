// Ctrl-C in a terminal signals the whole foreground process group, and
// `deno task` also forwards the SIGINT it gets to its child: one key press
// reaches `deno task cli receive` / `deno task cli listen` (the commands the
// docs give) twice. It must count once: `receive` and `listen` end cleanly
// with status 0, and `listen` removes its destination (API.md: "removes the
// destination on exit (Ctrl-C)"), not "Interrupted again" with 130.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
const SECRET = "whsec_" + btoa("0123456789abcdef0123456789abcdef");

/** `deno task -q cli ...args` as the leader of a process group of its own, as a terminal's foreground job is. */
function taskInGroup(args: string[]): Deno.ChildProcess {
  return new Deno.Command("setsid", {
    args: [Deno.execPath(), "task", "-q", "cli", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", WEBHOOK_SECRET: SECRET },
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

/** Reads stderr until `pattern` shows (the command is up), then keeps reading in the background. */
async function started(child: Deno.ChildProcess, pattern: RegExp): Promise<() => Promise<string>> {
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!pattern.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`ended before ${pattern}:\n${text}`);
    text += value;
  }
  const rest = (async () => {
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += r.value;
    return text;
  })();
  return () => rest;
}

/** The terminal's Ctrl-C: SIGINT to every process of the group. */
async function ctrlC(group: number): Promise<void> {
  const { code } = await new Deno.Command("kill", { args: ["-INT", "--", `-${group}`] }).output();
  assert.equal(code, 0);
}

async function endWithin(child: Deno.ChildProcess, ms: number): Promise<Deno.CommandStatus> {
  const timer = setTimeout(() => child.kill("SIGKILL"), ms);
  return await child.status.finally(() => clearTimeout(timer));
}

for (const command of ["receive", "listen"]) {
  Deno.test(`deno task cli ${command}: one Ctrl-C in a terminal ends it cleanly, status 0`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "cli_ctrl_c_" });
    const path = `${dir}/webhooks.kv`;
    const args = command === "receive"
      ? ["receive", "--port", "0", "--kv", path]
      : ["listen", "--forward-to", "http://127.0.0.1:9/hooks", "--kv", path];
    const child = taskInGroup(args);
    try {
      const stderr = await started(child, command === "receive" ? /Receiving postbacks on/ : /Forwarding postbacks/);
      await ctrlC(child.pid);
      const status = await endWithin(child, 15_000);
      const text = await stderr();
      assert.doesNotMatch(text, /Interrupted/, text);
      assert.equal(status.code, 0, text);
      if (command === "listen") {
        const kv = await Deno.openKv(path);
        try {
          assert.deepEqual(await createRelay(kv).destinations.list(), [], `the destination is left behind:\n${text}`);
        } finally {
          kv.close();
        }
      }
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // ended
      }
      await child.status;
      await Deno.remove(dir, { recursive: true });
    }
  });
}
