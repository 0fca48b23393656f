/**
 * A server process run short of file descriptors: its command under
 * `ulimit -n`, raw TCP connections held to use up its descriptors, and its
 * stderr read as it comes, for the tests that check a server sheds load
 * while descriptors are short and serves again once they are back
 * (tests/console/fd_exhaustion_test.ts, tests/webhooks/cli/receive_fd_test.ts, tests/sandbox/main_fd_test.ts,
 * tests/webhooks/net/keep_serving_episode_test.ts).
 *
 * @module
 */

import assert from "node:assert/strict";
import { endChild } from "./_child.ts";

/** A Deno command line (`deno <args>`) run through `sh` with its descriptor limit (`ulimit -n`) set to `limit`. */
export function limitedCommand(
  limit: number,
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Deno.Command {
  return new Deno.Command("sh", {
    args: ["-c", `ulimit -n ${limit} && exec "$0" "$@"`, Deno.execPath(), ...args],
    cwd: options.cwd,
    env: { NO_COLOR: "1", ...options.env },
    stdout: "piped",
    stderr: "piped",
  });
}

/** Text a process writes on one of its pipes, gathered as it comes. */
export interface Gathered {
  /** All written so far. */
  text(): string;
  /** Whether the pipe ended (the process exited). */
  ended(): boolean;
  /** Resolves once the text matches `pattern`; rejects, with the text, when the pipe ends before or `ms` pass. */
  until(pattern: RegExp, ms?: number): Promise<void>;
}

/** Gathers `stream` (a child's stdout or stderr) as text. */
export function gather(stream: ReadableStream<Uint8Array<ArrayBuffer>>): Gathered {
  let text = "";
  let ended = false;
  let wake = () => {};
  (async () => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      wake();
    }
  })().catch(() => {}).finally(() => {
    ended = true;
    wake();
  });
  return {
    text: () => text,
    ended: () => ended,
    async until(pattern, ms = 30_000) {
      const deadline = Date.now() + ms;
      while (!pattern.test(text)) {
        assert.ok(!ended, `the process ended before writing ${pattern}; it wrote: ${text}`);
        assert.ok(Date.now() < deadline, `no ${pattern} within ${ms} ms; it wrote: ${text}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 200);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
  };
}

/** Opens up to `most` TCP connections to `hostname:port` and holds them; stops at the first one refused. */
export async function holdConnections(hostname: string, port: number, most: number): Promise<Deno.Conn[]> {
  const held: Deno.Conn[] = [];
  while (held.length < most) {
    try {
      held.push(await Deno.connect({ hostname, port }));
    } catch {
      break; // refused or reset: the listener is gone (what the test checks comes next)
    }
  }
  return held;
}

/**
 * Runs a server out of descriptors: holds up to `most` connections to `hostname:port` (at least one) until its stderr
 * matches `said` (what it says when an accept fails), then closes them all, whatever happened.
 */
export async function exhaust(
  hostname: string,
  port: number,
  most: number,
  stderr: Gathered,
  said: RegExp = /too many open files/i,
): Promise<void> {
  let held: Deno.Conn[] = [];
  try {
    held = await holdConnections(hostname, port, most);
    assert.ok(held.length > 0, "no connection could be opened");
    await stderr.until(said);
  } finally {
    closeAll(held);
  }
}

/** Closes every connection `held` holds. */
export function closeAll(held: Deno.Conn[]): void {
  for (const conn of held) {
    try {
      conn.close();
    } catch {
      // Already closed by the server.
    }
  }
}

/** Asks `url` until it answers `status` (within 30 s; fetch errors count as not yet); fails at once if `stderr` ended. */
export async function untilAnswers(url: string, status: number, stderr: Gathered): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last = "nothing yet";
  while (true) {
    assert.ok(!stderr.ended(), `the process ended (${last} at ${url}); its stderr: ${stderr.text()}`);
    try {
      const res = await fetch(url, { redirect: "manual" });
      await res.body?.cancel();
      if (res.status === status) return;
      last = `status ${res.status}`;
    } catch (error) {
      last = String(error);
    }
    assert.ok(Date.now() < deadline, `${url} did not answer ${status} within 30 s: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * After an episode, once the process serves again: it said so plainly (descriptors named, no stack, no uncaught
 * error; with `once`, "too many open files" said once for the one episode), and `signal` ends it on its own with
 * status 0, as a stop always did.
 */
export async function assertSaidThenStops(
  child: Deno.ChildProcess,
  stderr: Gathered,
  signal: Deno.Signal,
  once: boolean,
): Promise<void> {
  await stderr.until(/again/i);
  const said = stderr.text();
  assert.match(said, /descriptor/i, said);
  assert.doesNotMatch(said, /Uncaught|^\s+at /m, `no stack, no uncaught error: ${said}`);
  if (once) assert.equal(said.match(/too many open files/gi)?.length, 1, `said once for the one episode: ${said}`);
  const { status, killed } = await endChild(child, signal);
  assert.equal(killed, false, `it did not end on ${signal}: ${stderr.text()}`);
  assert.equal(status.code, 0, stderr.text());
}
