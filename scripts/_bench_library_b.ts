// The Library B sections of BENCHMARKS.md: its helpers against lodash-es,
// qs and the platform, and its bundle size beside the DOM libraries. Private
// to scripts/.

import { exactBytes, fmtBytes, fmtRatio, fmtTime, mark, table } from "./_bench_format.ts";
import type { SectionContext } from "./_bench_module_a.ts";

/** Writes the Library B sections. */
export function libraryBSections(ctx: SectionContext, firstPassGzip: number): void {
  const { results, sizes, md, notes } = ctx;
  // Library B --------------------------------------------------------------------

  const LIBB = [
    { helper: "get", rivals: ["lodash-es"] },
    { helper: "set", rivals: ["lodash-es"] },
    { helper: "merge", rivals: ["lodash-es"] },
    { helper: "clone", rivals: ["lodash-es cloneDeep", "structuredClone"] },
    { helper: "each", rivals: ["lodash-es"] },
    { helper: "buildQuery", rivals: ["qs", "URLSearchParams"] },
    { helper: "parseQuery", rivals: ["qs", "URLSearchParams"] },
  ];
  const INPUTS: Record<string, Record<string, string>> = {
    get: { small: "`entity.resources.self.ref` of a record", large: "a 24-key path" },
    set: { small: "`entity.resources.self.ref` of a record", large: "a 24-key path into `{}`" },
    merge: { small: "4 sections of settings", large: "500 sections of settings" },
    clone: { small: "one webhook record", large: "1,000 records" },
    each: { small: "a 10-key object", large: "a 10,000-item array" },
    buildQuery: { small: "4 keys, one array", large: "200 keys, URLs and arrays" },
    parseQuery: { small: "6 pairs", large: "the 200-key query" },
  };
  const libRows: string[][] = [];
  const libMissed: { helper: string; size: string; rival: string; ratio: number }[] = [];
  for (const { helper, rivals } of LIBB) {
    for (const size of ["small", "large"]) {
      const g = `${helper} · ${size}`;
      const b = results.time(g, "Library B");
      const cells = rivals.map((rival) => {
        const t = results.time(g, rival);
        const r = results.ratio(g, rival, "Library B");
        // The target is set against lodash-es and qs; the platform built-ins are shown for reference.
        if (r !== undefined && r < 1 && (rival.startsWith("lodash") || rival === "qs")) {
          libMissed.push({ helper, size, rival, ratio: r });
        }
        return `${rival}: ${fmtTime(t)} (**${fmtRatio(r)}**)`;
      });
      const target = rivals.find((r) => r.startsWith("lodash") || r === "qs")!;
      const tr = results.ratio(g, target, "Library B");
      libRows.push([
        `\`${helper}\``,
        `${size}: ${INPUTS[helper][size]}`,
        fmtTime(b),
        cells.join("<br>"),
        mark(tr === undefined ? undefined : tr >= 1),
      ]);
    }
  }
  md.push(
    "## Library B against lodash-es, qs and the platform",
    "",
    "Mean time per call in Deno (V8). The ratio in bold is the rival's time over Library B's: above 1x Library B is",
    "ahead. Target: ahead of lodash-es and qs on every row (`structuredClone` and `URLSearchParams` are shown for",
    'reference). Semantics differ in places: `qs` is called with `arrayFormat: "repeat"` and `skipNulls` to build',
    "the same string; lodash's `merge` merges arrays index by index where Library B replaces them with a copy; the",
    "`URLSearchParams` rows collect repeated keys into arrays as `parseQuery` does. The benchmark checks that the",
    "contenders agree on its inputs before it measures them.",
    "",
    table(["helper", "input", "Library B", "rivals (rival / Library B)", "target"], libRows),
    "",
  );

  const WHY: Record<string, string> = {
    get:
      "lodash memoises the parsing of a string path (`stringToPath`, a cache of 500 paths), so a path used over and over is split once; Library B splits it on every call.",
    set:
      "lodash memoises the parsing of a string path; Library B splits it on every call and checks every key against `__proto__`, `constructor` and `prototype` before writing anything.",
    merge:
      "Library B's `merge` copies every non-plain value it takes over (arrays too) with `clone`, which keeps a `Map` of visited objects to preserve cycles.",
    clone:
      "Library B's `clone` keeps a `Map` of visited objects (to preserve cycles and shared references) and checks each key against the prototype-pollution names.",
    buildQuery:
      "Library B builds a one-item array (`[value].flat()`) for every value so that arrays and single values share one loop; qs and URLSearchParams do not allocate per value.",
  };
  for (const helper of new Set(libMissed.map((m) => m.helper))) {
    const rows = libMissed.filter((m) => m.helper === helper)
      .map((m) => `${m.size} input, ${m.rival} ${fmtRatio(1 / m.ratio)} faster`).join("; ");
    notes.push(`- **\`${helper}\` behind (${rows}).** ${WHY[helper] ?? "No cause recorded: to investigate."}`);
  }

  // Bundle sizes -------------------------------------------------------------------

  const bSize = sizes[0];
  md.push(
    "## Library B's bundle size",
    "",
    "Each library's unminified browser build from its npm package, minified by the same two passes as Library B's bundle",
    "(esbuild's `minify`, then terser with three compress passes: `minifyForBrowser` in `build/mod.ts`) and",
    "gzipped at level 9, in this run. The last rows bundle only the seven helpers measured above, tree-shaken, beside the",
    "lodash-es functions and qs they stand in for.",
    "",
    table(["Library B, every helper", "gzipped", "budget"], [
      ["esbuild's minifier alone (the first pass, for reference)", exactBytes(firstPassGzip), ""],
      [
        `then terser's pass (saves ${exactBytes(firstPassGzip - bSize.gzipBytes)})`,
        exactBytes(bSize.gzipBytes),
        `4,096 B ${mark(bSize.gzipBytes <= 4096)}`,
      ],
    ]),
    "",
    "Shrinks tried at the source and what each saved (gzipped, measured once with esbuild alone, issue 11): arrow",
    "functions for the `is*` helpers 4 B; an inline `need` message per call instead of the kinds table, 22 B worse; a",
    "namespace import in `global.ts`, 79 B worse; sorted export names, 0 B; the kinds' descriptions are 16 B in all. The",
    "pollution and deep-input fixes of issue 15 had added 148 B; terser's second pass won them back with room to spare.",
    "",
    table(
      ["library", "source", "minified", "gzipped", "gzipped / Library B"],
      sizes.map((
        s,
      ) => [s.name, s.source, fmtBytes(s.bytes), fmtBytes(s.gzipBytes), fmtRatio(s.gzipBytes / bSize.gzipBytes)]),
    ),
    "",
  );
}
