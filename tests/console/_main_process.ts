// The console command as a process (`deno run -A console/main.ts`, what
// `deno task console` runs), for the tests that start it whole:
// tests/console/main_test.ts and tests/console/telemetry_e2e_test.ts.

import assert from "node:assert/strict";
import { endChild } from "../_child.ts";

const ROOT = new URL("../../", import.meta.url);

/** A running console process. */
export interface ConsoleProcess {
  /** Where it listens, from its start line. */
  origin: string;
  /** Ends it (SIGTERM) and waits for it to exit (killed after 10 s: see tests/_child.ts). */
  stop(): Promise<void>;
}

/** The console command run from the project's folder in `env`, its output piped. */
export function consoleCommand(env: Record<string, string>): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", new URL("deno.json", ROOT).pathname, "console/main.ts"],
    cwd: ROOT.pathname,
    env,
    stdout: "piped",
    stderr: "piped",
  });
}

/**
 * Starts the console command from the project's folder with `PORT=0` and
 * `env`; resolves with its origin once it prints its start line (within
 * 30 s), and throws with its output when it exits before.
 */
export async function startConsoleProcess(env: Record<string, string>): Promise<ConsoleProcess> {
  const child = consoleCommand({ PORT: "0", ...env }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const text = await untilStartLine(reader);
  if (!/listening on (\S+)/.test(text)) {
    throw new Error(`the console exited: ${text}${await new Response(child.stderr).text()}`);
  }
  return {
    origin: /listening on (\S+)/.exec(text)![1],
    async stop() {
      const ended = endChild(child, "SIGTERM");
      await reader.cancel();
      await child.stderr.cancel();
      await ended;
    },
  };
}

/**
 * What a console process printed on stdout up to its start line ("listening on ..."), or up to its exit when it
 * printed none (within 30 s).
 */
export async function untilStartLine(reader: ReadableStreamDefaultReader<string>): Promise<string> {
  let text = "";
  const deadline = Date.now() + 30_000;
  while (!/listening on (\S+)/.test(text)) {
    assert.ok(Date.now() < deadline, `no start line in: ${text}`);
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
  }
  return text;
}
