/**
 * The load test's tables: one row per target and number of connections,
 * and the verdicts of the targets. Used by `scripts/loadtest.ts`; tested in
 * `tests/scripts/`.
 *
 * @module
 */

import { okRate, type RoundVerdict, type Run } from "./load_rounds.ts";

/** The key of a row among rows of several names and numbers of connections: `byTarget`'s keys. */
export function rowKey(target: string, connections: number): string {
  return `${target} @${connections}`;
}

/**
 * The table of runs, each row with its share of the ceiling and (a
 * receiver's) of the floor: for rounds, the median of the rounds' ratios,
 * the figure the targets are judged on. `verdicts` are the local receiver's
 * by number of connections; `byTarget` the other receivers' (KV Connect) by
 * {@linkcode rowKey}, their target name and connections.
 */
export function table(
  rows: Run[],
  ceiling: Map<number, Run>,
  verdicts: Map<number, RoundVerdict> = new Map(),
  byTarget: Map<string, RoundVerdict> = new Map(),
): string {
  const lines = [
    "| target | connections | requests | req/s | p50 ms | p99 ms | share of ceiling | share of floor | commits per postback | server CPU µs per request | non-200 |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  // Shares of answers 200 a second: a run that fails fast takes nothing in.
  const percent = (r: Run, of: Run | undefined) =>
    of && of !== r ? `${Math.round((okRate(r) / okRate(of)) * 100)}%` : "—";
  for (const r of rows) {
    const c = ceiling.get(r.connections);
    const verdict = r.target === "receiver"
      ? verdicts.get(r.connections)
      : byTarget.get(rowKey(r.target, r.connections));
    // A receiver row compares with the floor row of the same KV (a file, or KV Connect).
    const floorName = r.target.replace("receiver", "floor");
    const f = rows.find((row) => row.target === floorName && row.connections === r.connections);
    lines.push(
      `| ${r.target} | ${r.connections} | ${r.requests} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${
        percent(r, c)
      } | ${
        verdict ? `${Math.round(verdict.ratio * 100)}%` : r.target.startsWith("receiver") ? percent(r, f) : "—"
      } | ${
        r.target.startsWith("floor") ? "1" : r.commitsPerPostback === undefined ? "—" : r.commitsPerPostback.toFixed(2)
      } | ${r.cpuUsPerRequest === undefined ? "—" : Math.round(r.cpuUsPerRequest)} | ${r.other + r.errors} |`,
    );
  }
  return lines.join("\n");
}

/**
 * The verdicts of the targets (issue 23's against the floor, judged on the
 * median of the rounds; issue 13's against the ceiling), as a table.
 */
export function targets(
  rows: Run[],
  ceiling: Map<number, Run>,
  verdicts: Map<number, RoundVerdict>,
  balanced: boolean,
): string {
  const find = (target: string, c: number) => rows.find((r) => r.target === target && r.connections === c);
  const verdict = (ok: boolean | undefined) => ok === undefined ? "not measured" : ok ? "met" : "**missed**";
  const lines = ["| target | measured | verdict |", "|---|---:|---:|"];
  for (const c of [16, 64]) {
    const v = verdicts.get(c);
    const rounds = v && v.ratios.length > 1 ? ` (rounds: ${v.ratios.map((x) => x.toFixed(2)).join(", ")})` : "";
    lines.push(
      `| at ${c} connections, at least 1.0x the floor's requests/s | ${v ? `${v.ratio.toFixed(2)}x${rounds}` : "—"} | ${
        verdict(v ? v.ratio >= 1 : undefined)
      } |`,
    );
  }
  const v64 = verdicts.get(64);
  const r64 = find("receiver", 64);
  lines.push(
    `| at 64 connections, p99 no higher than the floor's | ${
      v64 ? `${v64.p99.receiver} ms (floor ${v64.p99.floor} ms)` : "—"
    } | ${verdict(v64 ? v64.p99.receiver <= v64.p99.floor : undefined)} |`,
    `| no postback answered 200 lost or duplicated | ${balanced ? "0 and 0" : "see the books"} | ${
      verdict(balanced)
    } |`,
  );
  const c16 = find("receiver", 16);
  const share = c16 && ceiling.get(16) ? okRate(c16) / okRate(ceiling.get(16)!) : undefined;
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
