/**
 * The load test's processes: starting a Deno script as a child process and
 * reading the address it prints, seeding the console's KV file with the
 * fixture's community and hook, and counting what the console stored.
 * Shared by the load test and the fault tests (`tests/console/faults_test.ts`).
 *
 * @module
 */

import { createWebhooks } from "../webhooks/mod.ts";
import { DeliveryStore } from "../console/log/mod.ts";
import type { LoadFixture } from "./load_postbacks.ts";

/** A running child process and the address it printed. */
export interface Started {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The process id. */
  pid: number;
  /** Ends the process (SIGTERM, then SIGKILL after 5 s) and waits for it. */
  stop(): Promise<void>;
  /** Kills the process at once (SIGKILL, as a crash or `kill -9`) and waits for it. */
  kill(): Promise<void>;
}

/**
 * The CPU time a process has used so far (user and system, all its threads),
 * in ms, from `/proc/<pid>/stat` (clock ticks of 10 ms); `null` where there
 * is no `/proc` (not Linux) or the process is gone.
 */
export async function processCpuMs(pid: number): Promise<number | null> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    // The fields after the command name (which may hold spaces, in parentheses): utime and stime are 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : null;
  } catch {
    return null;
  }
}

/** µs of CPU per request between two readings of a process's CPU time (ms), or undefined when one is missing. */
export function cpuPerRequest(before: number | null, after: number | null, requests: number): number | undefined {
  return before === null || after === null || requests === 0 ? undefined : ((after - before) * 1000) / requests;
}

/**
 * Runs `deno run -A <args>` with `env` added and waits (up to 60 s) for an
 * `http://127.0.0.1:<port>` address on its stdout.
 */
export async function startProcess(args: string[], env: Record<string, string>): Promise<Started> {
  const root = new URL("..", import.meta.url);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", new URL("deno.json", root).pathname, ...args],
    cwd: root.pathname,
    env: { ...env, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  let url: string | undefined;
  while (!url) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += value;
    url = seen.match(/http:\/\/127\.0\.0\.1:\d+/)?.[0];
  }
  clearTimeout(timer);
  if (!url) throw new Error(`${args[0]} did not print its address: ${seen.slice(0, 500)}`);
  // Keep draining stdout so the child never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  return {
    url,
    pid: child.pid,
    async stop() {
      const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      clearTimeout(kill);
    },
    async kill() {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      await child.status;
    },
  };
}

/** Saves the fixture's community and hook into the KV file at `path`. */
export async function seedConsoleKv(path: string, fixture: LoadFixture): Promise<void> {
  const kv = await Deno.openKv(path);
  try {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(fixture.community);
    await hooks.save(fixture.hook);
  } finally {
    kv.close();
  }
}

/** How many deliveries of `hookId` the KV file holds, and the distinct titles among them. */
export async function countDeliveries(
  path: string,
  hookId: string,
): Promise<{ total: number; titles: Set<string> }> {
  const kv = await Deno.openKv(path);
  try {
    const views = await new DeliveryStore(kv).list({ hookId, limit: 1_000_000 });
    // The accepted postbacks only: refused requests are logged beside them, and so are duplicates (200, with
    // the reason that they were handed to no one).
    const accepted = views.filter((v) => v.status === 200 && !v.reason);
    return { total: accepted.length, titles: new Set(accepted.map((v) => v.title)) };
  } finally {
    kv.close();
  }
}
