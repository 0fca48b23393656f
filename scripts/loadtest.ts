/**
 * `deno task loadtest`: the console's postback receiver under load, against
 * a bare `Deno.serve` that answers 200 (the ceiling), each served by a
 * process of its own while autocannon sends from this one. Every request is
 * a valid signed postback with a header and an activity id of its own.
 * After the runs the books are checked: every postback answered 200 is
 * stored exactly once, none lost, none duplicated. Writes the section
 * "Receiver under load" of BENCHMARKS.md (between its markers), or prints
 * it with `--print`.
 *
 * Each number of connections starts the floor and the console afresh on new
 * KV files; at 16 and 64 they run `--rounds` times in turns, the order
 * swapped each round (so an even number puts each first equally often), a
 * pause before each run, and the targets are judged on the median of the
 * rounds' ratios (load_rounds.ts).
 *
 * Past one machine (load_remote.ts): the floor and the console over one
 * KV served by the KV Connect test server, one process of each and two,
 * 16 connections per serving process, in rounds as above; then the same
 * with the server's answers held back `--latency` ms (a KV in another
 * region). Their books are counted from the shared KV, across processes.
 *
 * Flags: `--seconds N` per run (default 10), `--rounds N` (default 4),
 * `--quick` (2 s runs, one round), `--print` (do not write BENCHMARKS.md),
 * `--only SETS` (a comma-separated list of `local`, `remote` and
 * `remote-latency`; all by default), `--latency MS` (the `remote-latency`
 * rows' delay, default 20), `--delayed-ack` (the KV Connect server keeps
 * the kernel's delayed acknowledgement: a commit over 1 KiB may wait 40 ms).
 * `--latency` needs `remote-latency` in the run and `--delayed-ack` a KV Connect
 * set (scripts/load_args.ts). A run limited by `--only` or with `--delayed-ack` prints its section rather
 * than writing BENCHMARKS.md.
 *
 * @module
 */

import { parseLoadArgs } from "./load_args.ts";
import { machine } from "./_bench_run.ts";
import { loadFixture, signedRequests } from "./load_postbacks.ts";
import { countDeliveries, cpuPerRequest, processCpuMs, seedConsoleKv, startProcess } from "./load_processes.ts";
import { cannon, type Run, WARMUP_SECONDS } from "./_load_cannon.ts";
import { Answered } from "./load_books.ts";
import { merged, type RoundVerdict, turns, verdictOf } from "./load_rounds.ts";
import { rowKey, table, targets } from "./load_report.ts";
import { remoteLabel, type RemoteResult, remoteSets, runRemoteSet } from "./load_remote.ts";
import { scaleOutTargets } from "./load_targets.ts";

const CONCURRENCY = [1, 16, 64];
/** Pause before each run of the floor or the console, ms. */
const SETTLE_MS = 2_000;
const START = "<!-- loadtest:start -->";
const END = "<!-- loadtest:end -->";

async function main(): Promise<void> {
  const { seconds, rounds, only, latencyMs, delayedAck, print } = parseLoadArgs(Deno.args);
  const dir = await Deno.makeTempDir({ prefix: "cw-loadtest-" });
  const fixture = loadFixture();
  let seq = 0;
  const next = () => ++seq;
  const answered = new Answered();
  // Signed requests, from a signer of their own per target (each keeps its own replay claims).
  const sign = signedRequests(fixture, next);
  const signFloor = signedRequests(fixture, next);
  const onOk = (context: Record<string, unknown>) => answered.add(context.seq as number);

  const countFile = `${dir}/commits.txt`;
  const commits = async () => {
    await new Promise((r) => setTimeout(r, 250)); // the count is written every 100 ms
    return Number(await Deno.readTextFile(countFile).catch(() => "0"));
  };
  const rows: Run[] = [];
  const ceiling = new Map<number, Run>();
  const verdicts = new Map<number, RoundVerdict>();
  const books = { total: 0, titles: new Set<string>() };
  const ceilingProc = only.has("local") ? await startProcess(["scripts/_load_ceiling.ts"], {}) : undefined;
  try {
    // The local rows (skipped with --only naming other sets).
    for (const connections of ceilingProc ? CONCURRENCY : []) {
      const c = await cannon(ceilingProc!.url, connections, seconds);
      c.target = "ceiling";
      ceiling.set(connections, c);
      rows.push(c);
      // Each number of connections starts the floor and the console afresh, each on a new KV file, so both
      // meet the same history (a larger file costs the console's bigger rows more than the floor's claims).
      const kvPath = `${dir}/console-${connections}.kv`;
      await seedConsoleKv(kvPath, fixture);
      const floorProc = await startProcess(["scripts/_load_floor.ts"], {
        KV_PATH: `${dir}/floor-${connections}.kv`,
        CLIENT_SECRET: String(fixture.community.clientSecret),
      });
      const consoleProc = await startProcess(["scripts/_load_console.ts"], {
        COMMIT_COUNT_FILE: countFile,
        PORT: "0",
        HOST: "127.0.0.1",
        KV_PATH: kvPath,
        SANDBOX: "on",
        DELIVERIES_RETAIN: "10000000",
        RATE_LIMIT_RECEIVER: "0", // the load test measures the receiver, not its limit
      });
      const floors: Run[] = [], receivers: Run[] = [];
      let counted = 0;
      try {
        // Each process warmed up first, unmeasured (what the console stores then is stored, not answered, in the books).
        const hookUrl = `${consoleProc.url}/hooks/${fixture.hook.id}`;
        await cannon(floorProc.url, connections, WARMUP_SECONDS, signFloor);
        await cannon(hookUrl, connections, WARMUP_SECONDS, sign);
        // One round with a single connection (no drift to even out there: it only shows the cost of one request).
        const count = connections === 1 ? 1 : rounds;
        for (let round = 0; round < count; round++) {
          for (const turn of turns(round, "floor", "receiver")) {
            // A pause between runs: what one process leaves to the host (writeback, a checkpoint) is not the next's.
            await new Promise((r) => setTimeout(r, SETTLE_MS));
            if (turn === "floor") {
              const cpu = await processCpuMs(floorProc.pid);
              const f = await cannon(floorProc.url, connections, seconds, signFloor);
              f.target = "floor";
              f.cpuUsPerRequest = cpuPerRequest(cpu, await processCpuMs(floorProc.pid), f.requests);
              floors.push(f);
            } else {
              const before = await commits();
              const cpu = await processCpuMs(consoleProc.pid);
              const r = await cannon(hookUrl, connections, seconds, sign, onOk);
              r.target = "receiver";
              r.cpuUsPerRequest = cpuPerRequest(cpu, await processCpuMs(consoleProc.pid), r.requests);
              counted += (await commits()) - before;
              receivers.push(r);
            }
          }
        }
      } finally {
        await consoleProc.stop();
        await floorProc.stop();
      }
      const f = merged(floors), r = merged(receivers);
      r.commitsPerPostback = r.ok > 0 ? counted / r.ok : undefined;
      rows.push(f, r);
      const verdict = verdictOf(floors, receivers);
      verdicts.set(connections, verdict);
      const stored = await countDeliveries(kvPath, fixture.hook.id);
      books.total += stored.total;
      for (const title of stored.titles) books.titles.add(title);
      console.error(
        `c=${connections}: ceiling ${Math.round(c.rps)} req/s, floor ${Math.round(f.rps)} req/s, ` +
          `receiver ${Math.round(r.rps)} req/s, receiver/floor by round ${
            verdict.ratios.map((x) => x.toFixed(2)).join(" ")
          }`,
      );
    }
  } finally {
    await ceilingProc?.stop();
  }
  const remote: RemoteResult[] = [];
  for (const set of remoteSets(only, latencyMs)) {
    const result = await runRemoteSet(set, {
      dir,
      fixture,
      seconds,
      rounds,
      settleMs: SETTLE_MS,
      next,
      delayedAck,
    });
    remote.push(result);
    const [f, r] = result.rows;
    console.error(
      `${remoteLabel(set)}: floor ${Math.round(f.rps)} req/s, receiver ${Math.round(r.rps)} req/s, ` +
        `receiver/floor by round ${result.verdict.ratios.map((x) => x.toFixed(2)).join(" ")}; books: ` +
        `${result.books.answered} answered, ${result.books.lost} lost, ${result.books.duplicated} duplicated`,
    );
  }
  for (const result of remote) rows.push(...result.rows);
  const byTarget = new Map(
    remote.map((result) => [rowKey(result.rows[1].target, result.rows[1].connections), result.verdict]),
  );
  const sum = (pick: (r: RemoteResult) => number) => remote.reduce((total, r) => total + pick(r), 0);
  const remoteBooks = {
    answered: sum((r) => r.books.answered),
    stored: sum((r) => r.books.stored),
    lost: sum((r) => r.books.lost),
    duplicated: sum((r) => r.books.duplicated),
  };
  await Deno.remove(dir, { recursive: true });
  const ok = answered.size;
  const lost = answered.missingFrom(books.titles) + remoteBooks.lost;
  const duplicated = books.total - books.titles.size + remoteBooks.duplicated;
  const pause = SETTLE_MS / 1000;
  const section = [
    START,
    "## Receiver under load",
    "",
    `\`deno task loadtest\`: the console (\`console/main.ts\` on a temporary KV file of its own for each number of`,
    "connections), a bare `Deno.serve` answering 200 (the ceiling) and a bare `Deno.serve` that only verifies the",
    "header's HMAC and commits one claim to a KV file (the floor: one commit per postback, the baseline of the targets,",
    "not a limit: a receiver whose postbacks share commits can pass it), each in a process of its own; autocannon",
    `sends from this one, ${seconds} s per run. Each number of connections starts the floor and the console afresh, on`,
    `new KV files; each is first loaded ${WARMUP_SECONDS} s unmeasured (warm, as a serving process is), and each of`,
    `their runs follows a pause of ${pause} s. ${
      rounds > 1
        ? `At 16 and 64 connections they run ${rounds} rounds in turns, the order swapped each round, so the host's`
        : "One round each (--quick or --rounds 1): no drift evened out, so"
    }`,
    rounds > 1
      ? "drift falls on both alike; their row sums the rounds' requests, gives the mean req/s and the median p50 and p99,"
      : "a single pair of runs",
    rounds > 1
      ? 'and "share of floor" and the targets are the median of the rounds\' ratios of answers 200 a second.'
      : "decides the targets.",
    `Every request to the console and the floor is a valid signed postback with its own`,
    "header and activity id, signed before its run (so autocannon's process, on the same cores, spends no HMAC",
    "while the run is measured). The floor makes one commit per postback; the console stores each postback (its delivery",
    "rows, its claim and its place in the delivery sequence) in one commit shared with the postbacks that arrive with",
    'it, so it can make fewer: "commits per postback" counts every commit the console process made during the row',
    '(rate limits, attempt details and trimming included), over the postbacks answered 200. "Server CPU" is the',
    "serving process's user and system time (all its threads: JavaScript, SQLite's, the collector's) over its runs'",
    "requests (`/proc`; autocannon, on the same cores, is not in it; for several processes, their sum).",
    ...(remote.length > 0
      ? [
        "The KV Connect rows run the floor and the console against one KV served over KV Connect (kvconnect/, the test",
        `server with denokv's limits, ${
          delayedAck ? "keeping the kernel's delayed acknowledgements" : "acknowledging at once"
        }, in a process of its own over a new KV file for each set of rows), through Deno's own`,
        "remote client (`KV_PATH=<url>`, `DENO_KV_ACCESS_TOKEN`): one process of each at 16 and at 64 connections, then",
        "two floors and two consoles on the one KV, 16 connections each (autocannon spreads them over the processes), in rounds in turns",
        `as above; rows marked +${latencyMs} ms run against the server started with \`--latency ${latencyMs}\`, every answer`,
        "held back that long (a KV in another region). Their books are counted from the shared KV after the run.",
      ]
      : []),
    "",
    table(rows, ceiling, verdicts, byTarget),
    "",
    `Books: ${ok + remoteBooks.answered} postbacks answered 200 (${remoteBooks.answered} over KV Connect), ` +
    `${books.titles.size + remoteBooks.stored} stored (a postback whose answer came after its run`,
    `ended is stored but not counted as answered), ${lost} of those answered lost, ${duplicated} duplicated.`,
    ...(remote.length > 0
      ? [
        "",
        "Books over KV Connect, counted from each set's shared KV once its consoles had stopped:",
        "",
        ...remote.map(({ set, books }) =>
          `- ${remoteLabel(set)}: ${books.answered} answered 200, ${books.stored} stored, ${books.lost} lost, ` +
          `${books.duplicated} duplicated`
        ),
      ]
      : []),
    "",
    targets(rows, ceiling, verdicts, lost + duplicated === 0),
    "",
    "Issue 41's targets (past one machine), judged the same way; two consoles against one compares the two rows' answers 200 a second:",
    "",
    scaleOutTargets(verdicts, remote, latencyMs),
    "",
    `Machine: ${(await machine()).cpu}, ${Deno.build.os} ${Deno.build.arch}, ${navigator.hardwareConcurrency} cores,`,
    `Deno ${Deno.version.deno}, ${new Date().toISOString().slice(0, 10)}.`,
    END,
  ].join("\n");
  // A run limited by --only, or with --delayed-ack, prints its section: the one in BENCHMARKS.md is of a complete run.
  if (print) console.log(section);
  else await writeSection(section);
  if (lost !== 0 || duplicated !== 0) {
    console.error(`The books do not balance: ${lost} lost, ${duplicated} duplicated`);
    Deno.exit(1);
  }
}

async function writeSection(section: string): Promise<void> {
  const path = new URL("../BENCHMARKS.md", import.meta.url);
  const text = await Deno.readTextFile(path).catch(() => "# Benchmarks\n");
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  const next = start >= 0 && end > start
    ? text.slice(0, start) + section + text.slice(end + END.length)
    : `${text.trimEnd()}\n\n${section}\n`;
  await Deno.writeTextFile(path, next);
  console.error("BENCHMARKS.md: section 'Receiver under load' written");
}

if (import.meta.main) await main();
