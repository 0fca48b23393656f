/**
 * The load test past one machine: the floor and the console over one KV
 * served by the KV Connect test server (kvconnect/, denokv's limits, in a
 * process of its own over a KV file), one serving process of each or
 * several on the one KV, with the server's answers on time or held back
 * (`--latency`, a KV in another region). Each set of rows starts its own
 * server on a new file; the floor (`_load_floor.ts`, one commit per
 * postback) and the console (`_load_console.ts`, its commits counted) open
 * it with `KV_PATH=<url>` and `DENO_KV_ACCESS_TOKEN`. They run in rounds in
 * turns as the local rows do; autocannon spreads its connections over the
 * processes' addresses. The books are counted from the shared KV after the
 * run, across every process. Used by `scripts/loadtest.ts`; tested in
 * `tests/scripts/`.
 *
 * @module
 */

import { processKvToken } from "../kvconnect/mod.ts";
import { cannon, type Run, WARMUP_SECONDS } from "./_load_cannon.ts";
import { Answered, balance, type Books } from "./load_books.ts";
import { type LoadFixture, signedRequests } from "./load_postbacks.ts";
import {
  countDeliveries,
  cpuPerRequest,
  processCpuMs,
  seedConsoleKv,
  type Started,
  startProcess,
} from "./load_processes.ts";
import { merged, type RoundVerdict, turns, verdictOf } from "./load_rounds.ts";

/** The sets of rows a run can be limited to (`--only`). */
export const ROW_SETS = ["local", "remote", "remote-latency"] as const;

/** A set of rows: `local` (KV files), `remote` (KV Connect), `remote-latency` (KV Connect, answers held back). */
export type RowSet = typeof ROW_SETS[number];

/**
 * The row sets `--only` names: a comma-separated list of `local`, `remote`
 * and `remote-latency`; all of them when it is not given.
 *
 * @throws {RangeError} When a name is not a row set, or none is given.
 */
export function parseOnly(value: string | undefined): Set<RowSet> {
  if (value === undefined) return new Set(ROW_SETS);
  const names = value.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !(ROW_SETS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new RangeError(`--only must list row sets among ${ROW_SETS.join(", ")}, got '${value}'`);
  }
  return new Set(names as RowSet[]);
}

/** One set of KV Connect rows. */
export interface RemoteSet {
  /** How many floors, and how many consoles, share the one KV. */
  processes: number;
  /** How long the KV Connect server holds each answer back, ms. */
  latencyMs: number;
  /** Connections per serving process. */
  connections: number;
}

/**
 * The KV Connect sets of a run, for `remote` on time and for `remote-latency`
 * held back: one process at 16 and at 64 connections, then two at 16 each.
 */
export function remoteSets(only: Set<RowSet>, latencyMs: number): RemoteSet[] {
  const sets: RemoteSet[] = [];
  for (const latency of [...(only.has("remote") ? [0] : []), ...(only.has("remote-latency") ? [latencyMs] : [])]) {
    sets.push(
      { processes: 1, latencyMs: latency, connections: 16 },
      { processes: 1, latencyMs: latency, connections: 64 },
      { processes: 2, latencyMs: latency, connections: 16 },
    );
  }
  return sets;
}

/** A row's target name: `floor · KV Connect`, `receiver · KV Connect +20 ms · 2 processes`, ... */
export function remoteTarget(kind: "floor" | "receiver", set: RemoteSet): string {
  return `${kind} · KV Connect${set.latencyMs > 0 ? ` +${set.latencyMs} ms` : ""}${
    set.processes > 1 ? ` · ${set.processes} processes` : ""
  }`;
}

/**
 * A set's name in the books and the targets: `KV Connect, 1 process, 64
 * connections`, `KV Connect +20 ms, 2 processes, 16 connections each`, ...
 */
export function remoteLabel(set: RemoteSet): string {
  return `KV Connect${set.latencyMs > 0 ? ` +${set.latencyMs} ms` : ""}, ${set.processes} process${
    set.processes > 1 ? "es" : ""
  }, ${set.connections} connections${set.processes > 1 ? " each" : ""}`;
}

/** What a set of KV Connect rows needs from the run. */
export interface RemoteOptions {
  /** A folder for the KV file and the commit counts. */
  dir: string;
  fixture: LoadFixture;
  /** Seconds per run. */
  seconds: number;
  /** Rounds in turns (the order swapped each round). */
  rounds: number;
  /** True to start the server with `--delayed-ack` (the kernel's delayed acknowledgement kept). */
  delayedAck?: boolean;
  /** Pause before each run, ms. */
  settleMs: number;
  /**
   * Seconds each floor and console are loaded before the first measured run
   * (WARMUP_SECONDS by default); what they store then counts as stored, not
   * as answered in a row.
   */
  warmupSeconds?: number;
  /** The next postback number of the run (each postback's title is `Load load-{n}`). */
  next: () => number;
}

/** The rows of one set and its books. */
export interface RemoteResult {
  set: RemoteSet;
  /** The floor's row and the console's, each merged from its rounds. */
  rows: [Run, Run];
  /** The console against the floor, round by round. */
  verdict: RoundVerdict;
  /** What the consoles answered 200 against what the shared KV stores. */
  books: Books;
  /** Commits each console process made during the console's runs. */
  commitsByProcess: number[];
}

/** The sum of the processes' CPU times (ms), or null when one is missing. */
async function cpuOf(processes: Started[]): Promise<number | null> {
  const times = await Promise.all(processes.map((p) => processCpuMs(p.pid)));
  return times.some((t) => t === null) ? null : times.reduce((a, b) => a! + b!, 0);
}

/**
 * Runs one set of KV Connect rows: a KV Connect server (with the set's
 * latency) on a new KV file, `processes` floors and `processes` consoles on
 * it, their rounds in turns, then the books of the shared KV.
 */
export async function runRemoteSet(set: RemoteSet, options: RemoteOptions): Promise<RemoteResult> {
  const { dir, fixture, seconds, rounds, settleMs } = options;
  const connections = set.connections * set.processes;
  const name = `remote-${set.processes}p-${set.latencyMs}ms-${set.connections}c`;
  // This process seeds the KV and counts its books through Deno's client, which reads the token from Deno.env: the
  // process's own when it has one (another module of the process may be opening a KV with it), else a new one.
  const { token, restore } = processKvToken(crypto.randomUUID());
  const server = await startProcess([
    "kvconnect/main.ts",
    "--path",
    `${dir}/${name}.kv`,
    "--token",
    token,
    "--latency",
    String(set.latencyMs),
    ...(options.delayedAck ? ["--delayed-ack"] : []),
  ], {}).catch((error) => {
    restore();
    throw error;
  });
  const env = { DENO_KV_ACCESS_TOKEN: token, KV_PATH: server.url };
  const floors: Started[] = [], consoles: Started[] = [];
  const countFiles = Array.from({ length: set.processes }, (_, i) => `${dir}/${name}-commits-${i}.txt`);
  const commits = async () => {
    await new Promise((r) => setTimeout(r, 250)); // each count is written every 100 ms
    return await Promise.all(countFiles.map(async (f) => Number(await Deno.readTextFile(f).catch(() => "0"))));
  };
  const answered = new Answered();
  const floorRuns: Run[] = [], receiverRuns: Run[] = [];
  const commitsByProcess = countFiles.map(() => 0);
  try {
    try {
      await seedConsoleKv(server.url, fixture);
      for (let i = 0; i < set.processes; i++) {
        floors.push(
          await startProcess(["scripts/_load_floor.ts"], {
            ...env,
            CLIENT_SECRET: String(fixture.community.clientSecret),
          }),
        );
        consoles.push(
          await startProcess(["scripts/_load_console.ts"], {
            ...env,
            COMMIT_COUNT_FILE: countFiles[i],
            PORT: "0",
            HOST: "127.0.0.1",
            SANDBOX: "on",
            DELIVERIES_RETAIN: "10000000",
            RATE_LIMIT_RECEIVER: "0", // the load test measures the receiver, not its limit
          }),
        );
      }
      // Signers of this set's own: its KV is new, and its timestamps start afresh within the five-minute window.
      const signFloor = signedRequests(fixture, options.next);
      const sign = signedRequests(fixture, options.next);
      const floorUrls = floors.map((f) => f.url);
      const hookUrls = consoles.map((c) => `${c.url}/hooks/${fixture.hook.id}`);
      const warmup = options.warmupSeconds ?? WARMUP_SECONDS;
      if (warmup > 0) {
        await cannon(floorUrls, connections, warmup, signFloor);
        await cannon(hookUrls, connections, warmup, sign);
      }
      for (let round = 0; round < rounds; round++) {
        for (const turn of turns(round, "floor", "receiver")) {
          await new Promise((r) => setTimeout(r, settleMs));
          if (turn === "floor") {
            const cpu = await cpuOf(floors);
            const f = await cannon(floorUrls, connections, seconds, signFloor);
            f.target = remoteTarget("floor", set);
            f.cpuUsPerRequest = cpuPerRequest(cpu, await cpuOf(floors), f.requests);
            floorRuns.push(f);
          } else {
            const before = await commits();
            const cpu = await cpuOf(consoles);
            const r = await cannon(
              hookUrls,
              connections,
              seconds,
              sign,
              (context) => answered.add(context.seq as number),
            );
            r.target = remoteTarget("receiver", set);
            r.cpuUsPerRequest = cpuPerRequest(cpu, await cpuOf(consoles), r.requests);
            const after = await commits();
            after.forEach((n, i) => commitsByProcess[i] += n - before[i]);
            receiverRuns.push(r);
          }
        }
      }
    } finally {
      for (const p of [...consoles, ...floors]) await p.stop();
    }
    // Every console has stopped: what the shared KV holds now is all they stored.
    const books = balance(answered, await countDeliveries(server.url, fixture.hook.id));
    const f = merged(floorRuns), r = merged(receiverRuns);
    const counted = commitsByProcess.reduce((a, b) => a + b, 0);
    r.commitsPerPostback = r.ok > 0 ? counted / r.ok : undefined;
    return { set, rows: [f, r], verdict: verdictOf(floorRuns, receiverRuns), books, commitsByProcess };
  } finally {
    await server.stop();
    restore();
  }
}
