// `cli receive` as a child process, run as a user runs it, for the tests that
// post to it (cli_more_test.ts, receive_stop_test.ts, _receive_lost.ts):
// started on a KV, and ready once it says on stderr where it receives.

import { ROOT } from "./_cli_setup.ts";

/** What `cli receive` says on stderr once it serves: where. */
const SERVING = /http:\/\/[\d.]+:\d+\//;

/** A running `cli receive`. */
export interface ReceiveChild {
  /** The process. */
  child: Deno.ChildProcess;
  /** Where it receives postbacks (`http://127.0.0.1:<port>/`). */
  url: URL;
  /** All it writes on stdout, once it ended. */
  stdout: Promise<string>;
  /** All it writes on stderr, its first lines too, once it ended. */
  stderr: Promise<string>;
}

/** How {@linkcode startReceive} runs it. */
export interface ReceiveOptions {
  /** Its environment; the test's own by default. */
  env?: Record<string, string>;
  /** Killed (SIGKILL) this long after its start at the latest, whatever it is doing. */
  boundMs?: number;
  /** Its stdout's reader gone from the start (a pipe closed: `| head -0`); `stdout` then resolves `""`. */
  closeStdout?: boolean;
}

/**
 * Starts `deno run -A webhooks/cli.ts receive --port 0 --kv <kv>` and resolves once it said where it receives; one
 * that ends before that is an error naming what it said.
 */
export async function startReceive(kv: string, options: ReceiveOptions = {}): Promise<ReceiveChild> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "webhooks/cli.ts", "receive", "--port", "0", "--kv", kv],
    cwd: ROOT,
    env: options.env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.boundMs !== undefined) {
    const timer = setTimeout(() => child.kill("SIGKILL"), options.boundMs);
    child.status.finally(() => clearTimeout(timer));
  }
  const stdout = options.closeStdout ? child.stdout.cancel().then(() => "") : new Response(child.stdout).text();
  const errLines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!SERVING.test(seen)) {
    const read = await errLines.read();
    if (read.done) {
      await child.status;
      throw new Error(`receive did not start: ${seen}`);
    }
    seen += read.value;
  }
  const stderr = (async () => {
    for (let r = await errLines.read(); !r.done; r = await errLines.read()) seen += r.value;
    return seen;
  })();
  return { child, url: new URL(seen.match(SERVING)![0]), stdout, stderr };
}
