/**
 * The verdicts of issue 41's targets (past one machine), as a table: the
 * local rows against 1.3x and 1.8x the floor and their p99 against the
 * floor's; each KV Connect row against its floor, its p99 against the
 * floor's, its answers and its books; and, far away, two consoles against
 * one. Every ratio is of answers 200 a second. Ratios against a floor are
 * judged on the median of the rounds' ratios (the floor and the console ran
 * in turns); two consoles against one is the ratio of the two rows' means,
 * since those sets ran one after the other, not in turns. Every set the
 * issue names gets its lines: one the run did not measure (`--only`) is said
 * not measured. Used by `scripts/loadtest.ts`; tested in `tests/scripts/`.
 *
 * @module
 */

import type { Books } from "./load_books.ts";
import type { RemoteSet } from "./load_remote.ts";
import { okRate, type RoundVerdict, type Run } from "./load_rounds.ts";
import { remoteLabel, remoteSets } from "./load_remote.ts";

/** What the targets need of one set of KV Connect rows. */
export interface RemoteOutcome {
  set: RemoteSet;
  /** The floor's row and the console's, each merged from its rounds. */
  rows: [Run, Run];
  verdict: RoundVerdict;
  books: Books;
}

/** The local rows' targets: at least this share of the floor's requests/s, by number of connections. */
const LOCAL_SHARE = new Map([[16, 1.3], [64, 1.8]]);
/** Far away, two consoles serve at least this share of one console's requests/s. */
const TWO_AGAINST_ONE = 1.8;

const verdictText = (ok: boolean | undefined) => ok === undefined ? "not measured" : ok ? "met" : "**missed**";
const ratioText = (v: RoundVerdict) =>
  `${v.ratio.toFixed(2)}x${v.ratios.length > 1 ? ` (rounds: ${v.ratios.map((x) => x.toFixed(2)).join(", ")})` : ""}`;
const line = (target: string, measured: string, ok: boolean | undefined) =>
  `| ${target} | ${measured} | ${verdictText(ok)} |`;

/** The ratio and p99 lines of one receiver against its floor. */
function againstFloor(name: string, share: number, v: RoundVerdict | undefined, floors = "the floor's"): string[] {
  return [
    line(
      `${name}: at least ${share.toFixed(1)}x ${floors} requests/s`,
      v ? ratioText(v) : "—",
      v ? v.ratio >= share : undefined,
    ),
    line(
      `${name}: p99 no higher than the floor's`,
      v ? `${v.p99.receiver} ms (floor ${v.p99.floor} ms)` : "—",
      v ? v.p99.receiver <= v.p99.floor : undefined,
    ),
  ];
}

/** Issue 41's KV Connect sets: on time and held back `latencyMs`, one process at 16 and 64 connections, two at 16. */
const issueSets = (latencyMs: number) => remoteSets(new Set(["remote", "remote-latency"]), latencyMs);

/**
 * The table of issue 41's verdicts: `local` are the local receiver's
 * verdicts by number of connections, `remote` the KV Connect sets of the
 * run, `latencyMs` the latency its held-back sets ran with (the issue's
 * 20 ms by default). A target whose rows the run did not measure (a run
 * limited by `--only`) is said to be not measured, never left out.
 */
export function scaleOutTargets(local: Map<number, RoundVerdict>, remote: RemoteOutcome[], latencyMs = 20): string {
  const lines = ["| target | measured | verdict |", "|---|---:|---:|"];
  for (const [connections, share] of LOCAL_SHARE) {
    lines.push(...againstFloor(`local, ${connections} connections`, share, local.get(connections)));
  }
  if (remote.length === 0) lines.push(line("KV Connect rows", "—", undefined));
  const outcomeOf = (set: RemoteSet) =>
    remote.find((r) =>
      r.set.latencyMs === set.latencyMs && r.set.processes === set.processes && r.set.connections === set.connections
    );
  for (const set of issueSets(latencyMs)) {
    const outcome = outcomeOf(set);
    const name = remoteLabel(set);
    const [ratio, p99] = againstFloor(name, 1, outcome?.verdict, set.processes > 1 ? "the floors'" : "the floor's");
    // The p99 target is one process's; two processes must answer nothing but 200.
    lines.push(ratio, ...(set.processes === 1 ? [p99] : []));
    if (set.processes > 1) {
      const other = outcome ? outcome.rows[1].other + outcome.rows[1].errors : undefined;
      lines.push(
        line(
          `${name}: no answer other than 200`,
          other === undefined ? "—" : String(other),
          other === undefined ? undefined : other === 0,
        ),
      );
    }
    // Books of a set that answered nothing 200 balance with nothing in them: not a measure of the target.
    const books = outcome?.books;
    const counted = books !== undefined && books.answered > 0;
    lines.push(
      line(
        `${name}: every answer 200 stored once`,
        counted ? `${books.lost} lost, ${books.duplicated} duplicated` : books ? "nothing answered 200" : "—",
        counted ? books.lost === 0 && books.duplicated === 0 : undefined,
      ),
    );
  }
  const one = outcomeOf({ processes: 1, latencyMs, connections: 16 });
  const two = outcomeOf({ processes: 2, latencyMs, connections: 16 });
  const ratio = one && two ? okRate(two.rows[1]) / okRate(one.rows[1]) : undefined;
  lines.push(
    line(
      `KV Connect +${latencyMs} ms: two consoles at least ${TWO_AGAINST_ONE}x one console's requests/s`,
      ratio === undefined ? "—" : `${ratio.toFixed(2)}x`,
      ratio === undefined ? undefined : ratio >= TWO_AGAINST_ONE,
    ),
  );
  return lines.join("\n");
}
