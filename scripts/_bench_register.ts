// The section of BENCHMARKS.md on `register` end to end: the platform's
// round trip, the KV calls register cannot avoid, and the module's own code.
// Private to scripts/.

import { fmtRatio, fmtTime, table } from "./_bench_format.ts";
import type { SectionContext } from "./_bench_module_a.ts";

/** Writes the `register` section. */
export function registerSection(ctx: SectionContext): void {
  const { results, md } = ctx;
  const registerRows: string[][] = [];
  for (const backend of ["memory", "file"]) {
    const g = `register · ${backend}`;
    const platform = results.time(g, "platform only");
    const floor = results.time(g, "raw floor");
    const register = results.time(g, "register");
    registerRows.push([
      backend,
      fmtTime(platform),
      fmtTime(floor),
      fmtTime(register),
      fmtTime(register !== undefined && platform !== undefined ? register - platform : undefined),
      fmtTime(floor !== undefined && platform !== undefined ? floor - platform : undefined),
      fmtTime(register !== undefined && floor !== undefined ? register - floor : undefined),
      fmtRatio(results.ratio(g, "register", "raw floor")),
    ]);
  }
  md.push(
    "## Module A: `register` end to end",
    "",
    "Against the sandbox as the tests serve it (`tests/webhooks/platform.ts`, a real HTTP server on 127.0.0.1 in the",
    "same process). **platform only** is the bare round trip any client pays: POST the hook, read the answer, strip the",
    "anti-hijacking line, parse the JSON. **raw floor** adds exactly the KV calls `register` makes (community lookup by",
    "name, pending entry, guarded atomic save of the record with its two index copies, pending entry removed in the same",
    "atomic). The module's own time is `register` minus the platform's: the KV calls it cannot avoid (raw floor minus",
    "platform) and its own code (register minus raw floor).",
    "",
    table(
      [
        "KV",
        "platform only",
        "raw floor",
        "register",
        "module's own time per call",
        "of which KV calls",
        "of which the module's code",
        "register / floor",
      ],
      registerRows,
    ),
    "",
    "Most of the module's own time is its KV work (five KV calls, each a hop to the database thread, made while the",
    "thread has gone idle during the HTTP call); its code adds argument validation, the time-out signal, headers and",
    "the parsing of the answer.",
    "",
  );
}
