// The load test's reading of a serving process's CPU time (its "server CPU" column).

import assert from "node:assert/strict";
import { processCpuMs } from "../../scripts/load_processes.ts";

Deno.test({
  name: "processCpuMs: a process's CPU time grows as it works, and a process that is gone reads null",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const before = await processCpuMs(Deno.pid);
    assert.equal(typeof before, "number");
    const until = performance.now() + 120;
    let spin = 0;
    while (performance.now() < until) spin++;
    assert.ok(spin > 0);
    const after = await processCpuMs(Deno.pid);
    assert.ok(after! - before! >= 60, `${before} -> ${after}`);
    assert.equal(await processCpuMs(2 ** 22 + 1), null);
  },
});
