// The load test's tables: the receiver's share of the floor and the targets are judged on the median of the
// rounds' ratios, not on a ratio of means.

import assert from "node:assert/strict";
import { rowKey, table, targets } from "../../scripts/load_report.ts";
import { type Run, verdictOf } from "../../scripts/load_rounds.ts";

function run(target: string, connections: number, rps: number, p99: number): Run {
  return { target, connections, requests: rps * 10, rps, p50: 1, p99, ok: rps * 10, other: 0, errors: 0 };
}

/** Rounds at 16 and 64 connections whose mean ratio is above 1.0 and whose median ratio is below it (and the reverse). */
function fixture() {
  const floors16 = [run("floor", 16, 1000, 10), run("floor", 16, 1000, 10), run("floor", 16, 1000, 10)];
  const receivers16 = [run("receiver", 16, 2000, 9), run("receiver", 16, 900, 9), run("receiver", 16, 950, 9)];
  const floors64 = [run("floor", 64, 1000, 30), run("floor", 64, 1000, 20), run("floor", 64, 1000, 25)];
  const receivers64 = [run("receiver", 64, 500, 40), run("receiver", 64, 1100, 24), run("receiver", 64, 1050, 26)];
  const verdicts = new Map([[16, verdictOf(floors16, receivers16)], [64, verdictOf(floors64, receivers64)]]);
  const mean = (runs: Run[]) => ({ ...runs[0], rps: runs.reduce((t, r) => t + r.rps, 0) / runs.length });
  const rows = [mean(floors16), mean(receivers16), mean(floors64), mean(receivers64)];
  const ceiling = new Map([[16, run("ceiling", 16, 10_000, 1)], [64, run("ceiling", 64, 10_000, 1)]]);
  return { rows, ceiling, verdicts };
}

Deno.test("targets(): judged on the median of the rounds' ratios and p99s, with each round's ratio shown", () => {
  const { rows, ceiling, verdicts } = fixture();
  const text = targets(rows, ceiling, verdicts, true);
  // 16: ratios 2.00, 0.90, 0.95 (mean 1.28): the median, 0.95, is missed.
  assert.match(
    text,
    /\| at 16 connections, at least 1\.0x the floor's requests\/s \| 0\.95x \(rounds: 2\.00, 0\.90, 0\.95\) \| \*\*missed\*\* \|/,
  );
  // 64: ratios 0.50, 1.10, 1.05 (mean 0.88): the median, 1.05, is met.
  assert.match(
    text,
    /\| at 64 connections, at least 1\.0x the floor's requests\/s \| 1\.05x \(rounds: 0\.50, 1\.10, 1\.05\) \| met \|/,
  );
  // p99 at 64: the receiver's median (26) against the floor's median (25).
  assert.match(
    text,
    /\| at 64 connections, p99 no higher than the floor's \| 26 ms \(floor 25 ms\) \| \*\*missed\*\* \|/,
  );
  assert.match(text, /\| no postback answered 200 lost or duplicated \| 0 and 0 \| met \|/);
  assert.match(targets(rows, ceiling, verdicts, false), /\| see the books \| \*\*missed\*\* \|/);
  assert.match(
    targets(rows, ceiling, new Map(), true),
    /at 16 connections, at least 1\.0x the floor's requests\/s \| — \| not measured/,
  );
});

Deno.test("table(): a receiver's share of the floor is the median of its rounds' ratios", () => {
  const { rows, ceiling, verdicts } = fixture();
  const lines = table(rows, ceiling, verdicts).split("\n");
  const receiver16 = lines.find((line) => line.startsWith("| receiver | 16 |"))!;
  const receiver64 = lines.find((line) => line.startsWith("| receiver | 64 |"))!;
  assert.equal(receiver16.split("|")[8].trim(), "95%", receiver16);
  assert.equal(receiver64.split("|")[8].trim(), "105%", receiver64);
  // Without rounds, the ratio of the two rows.
  const single = table(rows, ceiling).split("\n").find((line) => line.startsWith("| receiver | 16 |"))!;
  assert.equal(single.split("|")[8].trim(), "128%", single);
});

Deno.test("table(): the serving process's CPU per request, rounded, where measured", () => {
  const { rows, ceiling, verdicts } = fixture();
  rows[0].cpuUsPerRequest = 196.4;
  const lines = table(rows, ceiling, verdicts).split("\n");
  assert.match(lines[0], /\| server CPU µs per request \| non-200 \|$/);
  assert.equal(lines.find((line) => line.startsWith("| floor | 16 |"))!.split("|")[10].trim(), "196");
  assert.equal(lines.find((line) => line.startsWith("| receiver | 16 |"))!.split("|")[10].trim(), "—");
});

Deno.test("table(): a KV Connect receiver's share of its floor is the median of its rounds, found by its name", () => {
  const { rows, ceiling, verdicts } = fixture();
  const floors = [
    run("floor · KV Connect · 2 processes", 32, 1000, 30),
    run("floor · KV Connect · 2 processes", 32, 1000, 30),
  ];
  const receivers = [
    run("receiver · KV Connect · 2 processes", 32, 100, 300),
    run("receiver · KV Connect · 2 processes", 32, 300, 300),
  ];
  const remote = [floors[0], { ...receivers[0], rps: 200 }];
  const byTarget = new Map([[
    rowKey("receiver · KV Connect · 2 processes", 32),
    verdictOf([floors[0], run("floor · KV Connect · 2 processes", 32, 3000, 30)], receivers),
  ]]);
  const lines = table([...rows, ...remote], ceiling, verdicts, byTarget).split("\n");
  const line = lines.find((l) => l.startsWith("| receiver · KV Connect · 2 processes | 32 |"))!;
  // Rounds 100/1000 and 300/3000: 10% each, where the rows' means would give 20%.
  assert.equal(line.split("|")[8].trim(), "10%", line);
  // No ceiling at 32 connections: no share of it.
  assert.equal(line.split("|")[7].trim(), "—", line);
  const plain = table([...rows, ...remote], ceiling, verdicts).split("\n")
    .find((l) => l.startsWith("| receiver · KV Connect · 2 processes | 32 |"))!;
  assert.equal(plain.split("|")[8].trim(), "20%", plain);
});

Deno.test("table(): two KV Connect receivers of one name, at 16 and 64 connections, each take their own rounds", () => {
  const { rows, ceiling, verdicts } = fixture();
  const name = "receiver · KV Connect";
  const at = (connections: number, floorRps: number, receiverRps: number) => ({
    rows: [run("floor · KV Connect", connections, floorRps, 10), run(name, connections, receiverRps, 10)],
    verdict: verdictOf([run("floor · KV Connect", connections, floorRps, 10)], [
      run(name, connections, receiverRps, 10),
    ]),
  });
  const a = at(16, 1000, 1200), b = at(64, 1000, 700);
  const byTarget = new Map([[rowKey(name, 16), a.verdict], [rowKey(name, 64), b.verdict]]);
  const lines = table([...rows, ...a.rows, ...b.rows], ceiling, verdicts, byTarget).split("\n");
  assert.equal(lines.find((l) => l.startsWith(`| ${name} | 16 |`))!.split("|")[8].trim(), "120%");
  assert.equal(lines.find((l) => l.startsWith(`| ${name} | 64 |`))!.split("|")[8].trim(), "70%");
});
