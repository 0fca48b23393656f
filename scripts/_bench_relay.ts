/**
 * The "Forwarding postbacks (the relay)" section of BENCHMARKS.md, from
 * `bench/relay_bench.ts`: one relay worker against a bare fetch loop of the
 * same concurrency (issue 45's target: at least 0.8x its throughput), and a
 * receiver whose `write` also calls `relay.write` against the same receiver
 * without it (at least 0.9x). Private to `scripts/bench.ts`.
 *
 * @module
 */

import type { Formatters, RatioSource } from "./_bench_receiving.ts";

/** Targets: throughput of the relay over the bare loop, of the receiver with `relay.write` over without. */
export const RELAY_TARGETS = { delivery: 0.8, receiving: 0.9 };

const CONCURRENCY = 16;
const BATCH = 200;
const BARE = `bare fetch loop, ${CONCURRENCY} at once · ${BATCH} POSTs`;
const BARE_SAME = `bare fetch loop of the relay's request, ${CONCURRENCY} at once · ${BATCH} POSTs`;
const RELAY = `relay worker, concurrency ${CONCURRENCY} · ${BATCH} entries`;
const PLAIN = "createReceiver({ write }) · 16 at once";
const RELAYED = "createReceiver({ write + relay.write }) · 16 at once";

/** The section's lines, and a note for each missed target. */
export function relaySection(results: RatioSource, f: Formatters): { md: string[]; notes: string[] } {
  const notes: string[] = [];
  const deliveryRows: string[][] = [];
  for (
    const [app, group] of [["answers at once", "relay delivery"], [
      "answers in 5 ms",
      "relay delivery, app answering in 5 ms",
    ]]
  ) {
    const g = `${group} · memory`;
    if (results.time(g, RELAY) === undefined) continue;
    // Throughput ratios: the bare loop's time over the relay's.
    const r = results.ratio(g, BARE, RELAY);
    const same = results.ratio(g, BARE_SAME, RELAY);
    const measured = app === "answers at once";
    const ok = r === undefined || !measured ? undefined : r >= RELAY_TARGETS.delivery;
    if (ok === false) {
      notes.push(`- **The relay's delivery, an app that ${app}: ${f.ratio(r)} of a bare fetch loop.** ${WHY_DELIVERY}`);
    }
    deliveryRows.push([
      app,
      f.time(results.time(g, BARE)),
      f.time(results.time(g, BARE_SAME)),
      f.time(results.time(g, RELAY)),
      `**${f.ratio(r)}**`,
      f.ratio(same),
      measured ? `≥ ${RELAY_TARGETS.delivery}x ${f.mark(ok)}` : "(no target)",
    ]);
  }
  const receivingRows: string[][] = [];
  const g = "relay receiving · memory";
  if (results.time(g, PLAIN) !== undefined) {
    const r = results.ratio(g, PLAIN, RELAYED);
    const ok = r === undefined ? undefined : r >= RELAY_TARGETS.receiving;
    if (ok === false) notes.push(`- **The receiver with \`relay.write\`: ${f.ratio(r)} of without.** ${WHY_RECEIVING}`);
    receivingRows.push([
      f.time(results.time(g, PLAIN)),
      f.time(results.time(g, RELAYED)),
      `**${f.ratio(r)}**`,
      `≥ ${RELAY_TARGETS.receiving}x ${f.mark(ok)}`,
    ]);
  }
  if (deliveryRows.length === 0 && receivingRows.length === 0) return { md: [], notes };
  const md = [
    "## Forwarding postbacks (the relay)",
    "",
    `One relay worker (concurrency ${CONCURRENCY}) delivering ${BATCH} entries written before it starts, to an app on`,
    "127.0.0.1 in the same process, against a bare `fetch` loop of the same concurrency POSTing as many bodies",
    "(`bench/relay_bench.ts`, `:memory:`). The relay's time includes starting the worker, signing each request, the",
    "commits that take entries under a lease and those that record each attempt. Ratios are throughputs (the bare",
    "loop's time over the relay's): 1.0x would be as fast as the loop. _Bare, relay's request_ is a bare loop sending",
    "the relay's own request (the three Standard Webhooks headers, a body of the same size, signed once ahead): the",
    "share of the gap that any sender of such requests pays.",
    "",
    f.table(
      [
        "app",
        "bare loop",
        "bare, relay's request",
        "relay",
        "relay / bare",
        "relay / bare (relay's request)",
        "target",
      ],
      deliveryRows,
    ),
    "",
    "A receiver storing each item, with and without `relay.write` adding the item's outbox entry (and its state, for",
    "the console's delivery page) to the same commit, one destination, 16 signed postbacks at once through",
    "`Deno.serve`. The ratio is a throughput: the receiver without over the receiver with.",
    "",
    f.table(["without relay.write", "with relay.write", "with / without", "target"], receivingRows),
    "",
  ];
  return { md, notes };
}

const WHY_DELIVERY =
  "The relay's own request costs what the bare loop's does (the middle column's gap is noise: about 150 µs of CPU " +
  "each, client and app in one process, measured one by one). Beside it, each entry costs about 130 µs of CPU on " +
  "`:memory:` (measured step by step on this machine): listing the due entries 19 µs (read once, up to twice the " +
  "concurrency at a time), moving each under its lease 46 µs (a delete and a copy of the entry; one check of the " +
  "partition's take counter per batch), recording its delivery 36 µs (the attempt, the state for `forwards`, the " +
  "delete; up to 64 to a commit, no check), signing 27 µs (the `standardwebhooks` package hashes in JavaScript) and " +
  "the body 5 µs. 0.8x would leave under 40 µs an entry for all of it, less than moving one entry costs. Each KV " +
  "call also waits for the KV's thread (about a millisecond a commit on this loaded machine), and an attempt keeps " +
  "its slot until its record is committed, which bounds a crash's copies by the concurrency.";

const WHY_RECEIVING =
  "Each item adds its outbox entry, its state for `forwards` and a `sum` of the wake counter to the receiver's " +
  "commit. Measured on `:memory:`, four items to a commit: the entry and the `sum` cost about 36 µs of CPU an " +
  "item and the state 27 µs, beside 43 µs for the item the receiver stores itself (the group commit also " +
  "serializes each value once more, to count its bytes). The state is what lets the console show a forward as " +
  "pending before any worker took it. Jobs that only sum the wake counter share a group commit (until they did, " +
  "each such job had a commit of its own).";
