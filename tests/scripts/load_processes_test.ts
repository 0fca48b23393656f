// The load test's reading of a serving process's CPU time (its "server CPU" column).

import assert from "node:assert/strict";
import process from "node:process";
import { processCpuMs } from "../../scripts/load_processes.ts";

Deno.test({
  name: "processCpuMs: a process's CPU time grows as it works, and a process that is gone reads null",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const before = await processCpuMs(Deno.pid);
    assert.equal(typeof before, "number");
    // Spins until the kernel's own count (getrusage) shows 100 ms more CPU: 120 ms of wall clock gave as little as
    // 40 ms of CPU beside two CPU hogs, and a loaded CI machine gives less; the wall clock only ends a hang.
    const start = process.cpuUsage();
    const deadline = performance.now() + 10_000;
    let spun = 0;
    while (spun < 100 && performance.now() < deadline) {
      const { user, system } = process.cpuUsage(start);
      spun = (user + system) / 1000;
    }
    assert.ok(spun >= 100, `only ${spun} ms of CPU in 10 s`);
    const after = await processCpuMs(Deno.pid);
    // In 10 ms ticks, read a tick early at most: the same CPU time, in ms.
    assert.ok(after! - before! >= spun - 10, `${before} -> ${after} for ${spun} ms of CPU`);
    assert.equal(await processCpuMs(2 ** 22 + 1), null);
  },
});
