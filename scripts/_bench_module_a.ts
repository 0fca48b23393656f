// The Module A sections of BENCHMARKS.md: the store against the floor and
// its references, growth with N, the store's overhead, seeding. `register`
// end to end is in _bench_register.ts. Private to scripts/.

import { fmtRatio, fmtTime, mark, sizeLabel, table, within } from "./_bench_format.ts";
import { median, type Options, type Results, TARGETS } from "./_bench_run.ts";
import type { Size } from "./_bench_sizes.ts";

/** What a report section reads of the run, and where it writes. */
export interface SectionContext {
  results: Results;
  options: Options;
  seedTimes: { backend: string; n: number; ms: number }[];
  sizes: Size[];
  md: string[];
  notes: string[];
}

/** Writes the Module A sections. */
export function moduleASections(ctx: SectionContext): void {
  const { results, options, seedTimes, md, notes } = ctx;
  const first = options.sizes[0];
  const last = options.sizes.at(-1)!;
  const growthLabel = `${sizeLabel(last)} / ${sizeLabel(first)}`;
  // Module A -------------------------------------------------------------------

  const OPS = [
    { op: "findByID", sdk: "get by key" },
    { op: "findByWebhookURL", sdk: "scan" },
    { op: "findByTenantID", sdk: "scan" },
    { op: "findByTenantID (N/100 records)", sdk: "" },
    { op: "save", sdk: "one set, no index" },
    { op: "remove", sdk: "" },
  ];
  const groupOf = (op: string, backend: string, n: number) => `${op} · ${backend} · ${sizeLabel(n)}`;

  md.push(
    "## Module A: the webhook store",
    "",
    `${options.sizes.map(sizeLabel).join(", ")} records spread over 100 tenants, in a KV file (in a temporary folder)`,
    "and in `:memory:`. Each operation is measured three ways:",
    "",
    "- **raw KV**: the best layout KV allows, with exactly the KV calls the store makes (the floor). Index entries hold",
    "  a copy of the record, so `findByTenantID` / `findByWebhookURL` are one prefix list; `save` gets the primary key,",
    "  then one atomic check + set of the record and its two index copies; `findByID` is one get.",
    "- **store**: `createWebhooks(kv)`'s method.",
    "- **pointer layout** (reference): the store's earlier layout, index entries that hold the record's id: list the",
    "  prefix, then `getMany` in batches of 10 (what `migrate()` moves a KV away from).",
    "- **node:sqlite** (reference): what a user would otherwise pick, a SQLite table (`node:sqlite`, in memory or in a",
    "  WAL file) with the record as JSON and indexes on `tenantId` and `url`, read with prepared statements. It runs in",
    "  the calling thread, where every Deno KV call is a hop to KV's own thread and back: the column shows what that",
    "  design costs, not a target.",
    "- **Node SDK**: the original jive-sdk's approach on the same data. Its `findByTenantID` and `findByWebhookURL` are",
    '  `persistence.find("webhook", criteria)`: read every record and walk the dotted path (`tenantId`,',
    "  `entity.resources.self.ref`). Its `findByID` is a lookup by key and its `save` writes the record alone, without",
    "  indexes (so it is cheaper to write and has nothing to find with).",
    "",
    "`findByTenantID` is measured on a tenant that has 10 records at every N (the lookup's own cost), and on a regular",
    "tenant, which holds N/100 records (the answer grows with N, so its time does too). `save` runs after every lookup",
    "and inserts new records as it is measured, so its N is the size the database started at. In the tables, times are each",
    "row's best round and ratios the median of the per-round ratios, so a ratio is not always the quotient of the two",
    "times beside it.",
    "",
  );

  for (const backend of ["memory", "file"]) {
    md.push(`### ${backend === "memory" ? "`:memory:`" : "KV file"}`, "");
    const rows: string[][] = [];
    for (const { op, sdk } of OPS) {
      for (const n of options.sizes) {
        const g = groupOf(op, backend, n);
        const raw = results.time(g, "raw KV");
        const store = results.time(g, "store");
        const node = sdk ? results.time(g, "Node SDK") : undefined;
        const reference = (row: string) => {
          const t = results.time(g, row);
          return t === undefined ? "" : `${fmtTime(t)} (${fmtRatio(results.ratio(g, row, "store"))})`;
        };
        rows.push([
          `\`${op}\``,
          sizeLabel(n),
          fmtTime(raw),
          fmtTime(store),
          fmtRatio(results.ratio(g, "store", "raw KV")),
          reference("pointer layout"),
          reference("node:sqlite"),
          sdk ? `${fmtTime(node)} (${sdk})` : "",
          sdk ? fmtRatio(results.ratio(g, "Node SDK", "store")) : "",
        ]);
      }
    }
    md.push(
      table([
        "operation",
        "N",
        "raw KV (floor)",
        "store",
        "store / floor",
        "pointer layout (/ store)",
        "node:sqlite (/ store)",
        "Node SDK",
        "Node SDK / store",
      ], rows),
      "",
    );
  }

  // Growth and overhead verdicts.
  const growthRows: string[][] = [];
  const growthMissed: { op: string; backend: string; store: number; raw?: number }[] = [];
  for (const backend of ["memory", "file"]) {
    for (const op of ["findByID", "findByWebhookURL", "findByTenantID"]) {
      const big = groupOf(op, backend, last);
      const small = groupOf(op, backend, first);
      const store = results.ratioAcross(big, "store", small, "store");
      const raw = results.ratioAcross(big, "raw KV", small, "raw KV");
      const scanned = op !== "findByID";
      const scan = scanned ? results.ratioAcross(big, "Node SDK", small, "Node SDK") : undefined;
      const ok = store === undefined ? undefined : within(store, TARGETS.growth);
      if (ok === false) growthMissed.push({ op, backend, store: store!, raw });
      growthRows.push([
        `\`${op}\``,
        backend,
        fmtRatio(store),
        fmtRatio(raw),
        scanned ? fmtRatio(scan, 1) : "(get by key)",
        mark(ok),
      ]);
    }
  }
  md.push(
    `### Growth with N (${growthLabel} records, ${last / first}x the data)`,
    "",
    `Target: the indexed lookups stay flat, at most ${TARGETS.growth}x; the scan grows linearly (about ${
      last / first
    }x).`,
    "",
    "Every round of a backend's run measures all sizes one after the other; a growth figure is the median over the",
    "rounds of the ratio between the two sizes' times within each round.",
    "",
    table(["lookup", "KV", "store", "raw KV", "Node SDK scan", "target"], growthRows),
    "",
  );

  const overheadRows: string[][] = [];
  let overheadMissed: string[] = [];
  for (const backend of ["memory", "file"]) {
    for (const { op } of OPS) {
      const perN = options.sizes.map((n) => results.ratio(groupOf(op, backend, n), "store", "raw KV"));
      const all = options.sizes.flatMap((n) => results.roundRatios(groupOf(op, backend, n), "store", "raw KV"));
      const pooled = all.length ? median(all) : undefined;
      const ok = pooled === undefined ? undefined : within(pooled, TARGETS.overhead);
      if (ok === false) overheadMissed.push(`${op} (${backend})`);
      overheadRows.push([`\`${op}\``, backend, ...perN.map((r) => fmtRatio(r)), `**${fmtRatio(pooled)}**`, mark(ok)]);
    }
  }
  overheadMissed = [...new Set(overheadMissed)];
  md.push(
    "### The store's overhead over raw KV",
    "",
    `Target: at most ${
      Math.round((TARGETS.overhead - 1) * 100)
    }% (store / floor ≤ ${TARGETS.overhead}x). The store's own`,
    "work does not depend on N (the lookups read the same keys as the floor at every N), so the verdict is on the median",
    `of all rounds at all sizes (${
      options.rounds * options.sizes.length
    } per-round ratios); the columns per N show the`,
    "medians of their own rounds, each noisier.",
    "",
    table(["operation", "KV", ...options.sizes.map((n) => `N = ${sizeLabel(n)}`), "all N", "target"], overheadRows),
    "",
  );

  // A/A control: findByID's "Node SDK" row makes the very same KV call as its
  // "raw KV" row, so their ratio is what noise alone does to a ratio.
  const control = ["memory", "file"].flatMap((backend) =>
    options.sizes.map((n) => {
      const g = groupOf("findByID", backend, n);
      return { label: `${backend} ${sizeLabel(n)}`, r: results.ratio(g, "Node SDK", "raw KV") };
    })
  );
  md.push(
    "Control: `findByID`'s Node SDK row makes the very same KV call as its raw KV row (one get), so their ratio is what",
    `noise alone does to a ratio in this run: ${control.map((c) => `${c.label} ${fmtRatio(c.r)}`).join(", ")}.`,
    "",
  );

  const saveMissed = overheadMissed.filter((o) => o.startsWith("save")).map((o) =>
    o === "save (memory)" ? "`:memory:`" : "the KV file"
  );
  if (saveMissed.length) {
    const pct = (r: number) => `${r >= 1 ? "+" : ""}${((r - 1) * 100).toFixed(0)}%`;
    const share = (backend: string) => {
      const all = options.sizes.flatMap((n) => results.roundRatios(groupOf("save", backend, n), "store", "raw KV"));
      return `${backend === "memory" ? "`:memory:`" : "the KV file"}: store ${pct(median(all))}`;
    };
    notes.push(
      `- **\`save\` over the floor on ${saveMissed.join(" and ")}.** Before its KV calls the store copies the record,`,
      "  checks its fields and computes the index keys (an asynchronous step: a URL too long for a key is hashed); the",
      "  floor does none of that. KV itself refuses a record over 64 KiB on the commit, which the store turns into a",
      `  \`RangeError\` naming the record (medians over all rounds and sizes, ${share("memory")}; ${share("file")}).`,
      "  These are fixed costs of a few microseconds per call, so they weigh most where the write itself is cheapest",
      "  (`:memory:`).",
    );
  }
  const lookupMissed = overheadMissed.filter((o) => !o.startsWith("save"));
  if (lookupMissed.length) {
    notes.push(
      `- **Lookups over the floor: ${
        lookupMissed.join(", ")
      }.** The store's lookups make exactly the floor's KV calls;`,
      "  what it adds is an argument check, a retry wrapper for a locked database file (closures and awaits), a check",
      "  that each copy matches, and a look for pointers of the earlier layout. Those microseconds weighed more than the target",
      "  against the KV calls in this run; the A/A control above shows how far two identical calls drift apart here,",
      "  which is the margin to read such a ratio with.",
    );
  }
  if (growthMissed.length) {
    notes.push(
      `- **Lookups that grew more than ${TARGETS.growth}x from ${sizeLabel(first)} to ${sizeLabel(last)}: ${
        growthMissed.map((g) => `${g.op} (${g.backend}: store ${fmtRatio(g.store)}, raw KV ${fmtRatio(g.raw)})`).join(
          ", ",
        )
      }.**`,
      "  The store's lookups read a fixed number of keys whatever N is; their only dependence on N is the depth of",
      "  SQLite's B-tree (log N). Where the raw KV column grew as much as the store, the growth comes from the database",
      "  and the machine (in-memory SQLite with 100k records, other processes on a 2-core machine: see the A/A control",
      "  and the load average), not from the store's code, and it falls far short of the scan's linear growth.",
    );
  }

  // Index copies against the pointer layout they replace (issue 11).
  const pointerRows: string[][] = [];
  for (const backend of ["memory", "file"]) {
    for (const op of ["findByTenantID (N/100 records)", "findByWebhookURL"]) {
      const g = groupOf(op, backend, last);
      const r = results.ratio(g, "pointer layout", "store");
      // The target is the tenant lookup's (1,000 records); one record by URL is shown for reference only.
      const targeted = op.startsWith("findByTenantID");
      const ok = r === undefined ? undefined : r >= TARGETS.pointer;
      if (targeted && ok === false) {
        notes.push(`- **\`${op}\` only ${fmtRatio(r)} faster than the pointer layout (${backend}).** To investigate.`);
      }
      pointerRows.push([
        `\`${op}\``,
        backend,
        sizeLabel(last),
        fmtTime(results.time(g, "pointer layout")),
        fmtTime(results.time(g, "store")),
        `**${fmtRatio(r)}**`,
        targeted ? `≥ ${TARGETS.pointer}x ${mark(ok)}` : "(reference)",
      ]);
    }
  }
  md.push(
    "### Index copies against the pointer layout",
    "",
    `The store's lookups beside the layout \`migrate()\` moves away from, at N = ${sizeLabel(last)} (a regular tenant`,
    `holds ${
      (last / 100).toLocaleString("en-US")
    } records there). Target: at least ${TARGETS.pointer}x faster for a tenant of 1,000 records.`,
    "",
    table(["lookup", "KV", "N", "pointer layout", "store", "pointer / store", "target"], pointerRows),
    "",
  );

  md.push(
    "### Seeding",
    "",
    "Records are written before the measurements, 50 per atomic operation (the record, its two index copies and the",
    "pointer layout's two entries each; the SQLite reference takes them in one transaction), one database per size:",
    "",
    table(
      ["KV", "N", "seeding time", "records / s"],
      seedTimes.map((
        s,
      ) => [
        s.backend,
        sizeLabel(s.n),
        fmtTime(s.ms * 1e6),
        Math.round((s.n + 10) / (s.ms / 1000)).toLocaleString("en"),
      ]),
    ),
    "",
  );
}
