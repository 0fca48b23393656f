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
 * Flags: `--seconds N` per run (default 10), `--quick` (2 s runs),
 * `--print` (do not write BENCHMARKS.md).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { loadFixture, postbackBody, Signer } from "./load_postbacks.ts";
import { countDeliveries, seedConsoleKv, startProcess } from "./load_processes.ts";
import { cannon, type Run } from "./_load_cannon.ts";
import { Answered } from "./load_books.ts";

const CONCURRENCY = [1, 16, 64];
const START = "<!-- loadtest:start -->";
const END = "<!-- loadtest:end -->";

function table(rows: Run[], ceiling: Map<number, Run>): string {
  const lines = [
    "| target | connections | requests | req/s | p50 ms | p99 ms | share of ceiling | share of floor | commits per postback | non-200 |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  const percent = (r: Run, of: Run | undefined) => of && of !== r ? `${Math.round((r.rps / of.rps) * 100)}%` : "—";
  for (const r of rows) {
    const c = ceiling.get(r.connections);
    // A receiver row compares with the floor row of the same KV (a file, or KV Connect).
    const floorName = r.target.replace("receiver", "floor");
    const f = rows.find((row) => row.target === floorName && row.connections === r.connections);
    lines.push(
      `| ${r.target} | ${r.connections} | ${r.requests} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${
        percent(r, c)
      } | ${r.target.startsWith("receiver") ? percent(r, f) : "—"} | ${
        r.target.startsWith("floor") ? "1" : r.commitsPerPostback === undefined ? "—" : r.commitsPerPostback.toFixed(2)
      } | ${r.other + r.errors} |`,
    );
  }
  return lines.join("\n");
}

/** The verdicts of the targets (issue 23's against the floor, issue 13's against the ceiling), as a table. */
function targets(rows: Run[], ceiling: Map<number, Run>, balanced: boolean): string {
  const find = (target: string, c: number) => rows.find((r) => r.target === target && r.connections === c);
  const verdict = (ok: boolean | undefined) => ok === undefined ? "not measured" : ok ? "met" : "**missed**";
  const lines = ["| target | measured | verdict |", "|---|---:|---:|"];
  for (const c of [16, 64]) {
    const r = find("receiver", c), f = find("floor", c);
    const share = r && f ? r.rps / f.rps : undefined;
    lines.push(
      `| at ${c} connections, at least 1.0x the floor's requests/s | ${
        share === undefined ? "—" : `${share.toFixed(2)}x`
      } | ${verdict(share === undefined ? undefined : share >= 1)} |`,
    );
  }
  const r64 = find("receiver", 64), f64 = find("floor", 64);
  lines.push(
    `| at 64 connections, p99 no higher than the floor's | ${
      r64 && f64 ? `${r64.p99} ms (floor ${f64.p99} ms)` : "—"
    } | ${verdict(r64 && f64 ? r64.p99 <= f64.p99 : undefined)} |`,
    `| no postback answered 200 lost or duplicated | ${balanced ? "0 and 0" : "see the books"} | ${
      verdict(balanced)
    } |`,
  );
  const c16 = find("receiver", 16);
  const share = c16 && ceiling.get(16) ? c16.rps / ceiling.get(16)!.rps : undefined;
  lines.push(
    `| (issue 13) at 16 connections, at least 50% of the ceiling's requests/s | ${
      share === undefined ? "—" : `${(share * 100).toFixed(0)}%`
    } | ${verdict(share === undefined ? undefined : share >= 0.5)} |`,
    `| (issue 13) at 64 connections, p99 under 50 ms | ${r64 ? `${r64.p99} ms` : "—"} | ${
      verdict(r64 ? r64.p99 < 50 : undefined)
    } |`,
  );
  return lines.join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      seconds: { type: "string", default: "10" },
      quick: { type: "boolean", default: false },
      print: { type: "boolean", default: false },
    },
    strict: true,
  });
  const seconds = values.quick ? 2 : Number(values.seconds);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 120) {
    throw new RangeError(`--seconds must be from 1 to 120, got '${values.seconds}'`);
  }
  const dir = await Deno.makeTempDir({ prefix: "cw-loadtest-" });
  const kvPath = `${dir}/console.kv`;
  const fixture = loadFixture();
  await seedConsoleKv(kvPath, fixture);
  let seq = 0;
  const answered = new Answered();
  /** Signed requests, from a signer of their own per target (each keeps its own replay claims). */
  const signing = () => {
    const signer = new Signer(fixture.community);
    return (req: Record<string, unknown>, context: Record<string, unknown>) => {
      const id = `load-${++seq}`;
      context.seq = seq;
      return {
        ...req,
        headers: { "content-type": "application/json", authorization: signer.next(), "x-tenant-id": "load-tenant" },
        body: postbackBody(fixture.ref, id),
      };
    };
  };
  const sign = signing();
  const signFloor = signing();
  const onOk = (context: Record<string, unknown>) => answered.add(context.seq as number);

  const ceilingProc = await startProcess(["scripts/_load_ceiling.ts"], {});
  const floorProc = await startProcess(["scripts/_load_floor.ts"], {
    KV_PATH: `${dir}/floor.kv`,
    CLIENT_SECRET: String(fixture.community.clientSecret),
  });
  const countFile = `${dir}/commits.txt`;
  const commits = async () => {
    await new Promise((r) => setTimeout(r, 250)); // the count is written every 100 ms
    return Number(await Deno.readTextFile(countFile).catch(() => "0"));
  };
  const consoleProc = await startProcess(["scripts/_load_console.ts"], {
    COMMIT_COUNT_FILE: countFile,
    PORT: "0",
    HOST: "127.0.0.1",
    KV_PATH: kvPath,
    SANDBOX: "on",
    DELIVERIES_RETAIN: "100000",
    RATE_LIMIT_RECEIVER: "0", // the load test measures the receiver, not its limit
  });
  const rows: Run[] = [];
  const ceiling = new Map<number, Run>();
  try {
    for (const connections of CONCURRENCY) {
      const c = await cannon(ceilingProc.url, connections, seconds);
      c.target = "ceiling";
      ceiling.set(connections, c);
      rows.push(c);
      const f = await cannon(floorProc.url, connections, seconds, signFloor);
      f.target = "floor";
      rows.push(f);
      const before = await commits();
      const r = await cannon(`${consoleProc.url}/hooks/${fixture.hook.id}`, connections, seconds, sign, onOk);
      r.target = "receiver";
      r.commitsPerPostback = r.ok > 0 ? ((await commits()) - before) / r.ok : undefined;
      rows.push(r);
      console.error(
        `c=${connections}: ceiling ${Math.round(c.rps)} req/s, floor ${Math.round(f.rps)} req/s, ` +
          `receiver ${Math.round(r.rps)} req/s`,
      );
    }
  } finally {
    await consoleProc.stop();
    await floorProc.stop();
    await ceilingProc.stop();
  }
  const books = await countDeliveries(kvPath, fixture.hook.id);
  const remote = await remoteRows(dir, fixture, seconds, sign, signFloor);
  rows.push(...remote.rows);
  await Deno.remove(dir, { recursive: true });
  const ok = answered.size;
  const lost = answered.missingFrom(books.titles) + remote.lost;
  const duplicated = books.total - books.titles.size + remote.duplicated;
  const section = [
    START,
    "## Receiver under load",
    "",
    `\`deno task loadtest\`: the console (\`console/main.ts\` on a temporary KV file), a bare \`Deno.serve\` answering`,
    "200 (the ceiling) and a bare `Deno.serve` that only verifies the header's HMAC and commits one claim to a KV file",
    `(the floor: one commit per postback, the baseline of the targets, not a limit: a receiver whose postbacks share`,
    `commits can pass it), each in a process of its own; autocannon sends from`,
    `this one, ${seconds} s per row. Every request to the console and the floor is a valid signed postback with its own`,
    "header and activity id. The floor makes one commit per postback; the console stores each postback (its delivery",
    "rows, its claim and its place in the delivery sequence) in one commit shared with the postbacks that arrive with",
    'it, so it can make fewer: "commits per postback" counts every commit the console process made during the row',
    "(rate limits, attempt details and trimming included), over the postbacks answered 200. The KV Connect rows run",
    `the floor and the console against one KV served over KV Connect (kvconnect/, the test server with denokv's limits,`,
    "in a process of its own, over a KV file), through Deno's own remote client.",
    "",
    table(rows, ceiling),
    "",
    `Books: ${ok + remote.answered} postbacks answered 200 (${remote.answered} over KV Connect), ` +
    `${books.titles.size + remote.stored} stored (a postback whose answer came after its run`,
    `ended is stored but not counted as answered), ${lost} of those answered lost, ${duplicated} duplicated.`,
    "",
    targets(rows, ceiling, lost + duplicated === 0),
    "",
    `Machine: ${Deno.build.os} ${Deno.build.arch}, ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno},`,
    `${new Date().toISOString().slice(0, 10)}.`,
    END,
  ].join("\n");
  if (values.print) console.log(section);
  else await writeSection(section);
  if (lost !== 0 || duplicated !== 0) {
    console.error(`The books do not balance: ${lost} lost, ${duplicated} duplicated`);
    Deno.exit(1);
  }
}

/** KV Connect rows: the floor and the console against one KV served over KV Connect, at 16 connections. */
async function remoteRows(
  dir: string,
  fixture: ReturnType<typeof loadFixture>,
  seconds: number,
  sign: (req: Record<string, unknown>, context: Record<string, unknown>) => Record<string, unknown>,
  signFloor: (req: Record<string, unknown>, context: Record<string, unknown>) => Record<string, unknown>,
): Promise<{ rows: Run[]; answered: number; stored: number; lost: number; duplicated: number }> {
  const token = crypto.randomUUID();
  const server = await startProcess(["kvconnect/main.ts", "--path", `${dir}/remote.kv`, "--token", token], {});
  const env = { DENO_KV_ACCESS_TOKEN: token };
  Deno.env.set("DENO_KV_ACCESS_TOKEN", token);
  const answered = new Answered();
  const rows: Run[] = [];
  try {
    await seedConsoleKv(server.url, fixture);
    const floor = await startProcess(["scripts/_load_floor.ts"], {
      ...env,
      KV_PATH: server.url,
      CLIENT_SECRET: String(fixture.community.clientSecret),
    });
    const remoteConsole = await startProcess(["console/main.ts"], {
      ...env,
      PORT: "0",
      HOST: "127.0.0.1",
      KV_PATH: server.url,
      SANDBOX: "on",
      DELIVERIES_RETAIN: "100000",
      RATE_LIMIT_RECEIVER: "0",
    });
    try {
      const f = await cannon(floor.url, 16, seconds, signFloor);
      f.target = "floor · KV Connect";
      const r = await cannon(`${remoteConsole.url}/hooks/${fixture.hook.id}`, 16, seconds, sign, (context) => {
        answered.add(context.seq as number);
      });
      r.target = "receiver · KV Connect";
      rows.push(f, r);
    } finally {
      await remoteConsole.stop();
      await floor.stop();
    }
    const books = await countDeliveries(server.url, fixture.hook.id);
    const lost = answered.missingFrom(books.titles);
    return {
      rows,
      answered: answered.size,
      stored: books.titles.size,
      lost,
      duplicated: books.total - books.titles.size,
    };
  } finally {
    await server.stop();
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
