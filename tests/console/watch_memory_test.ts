// The live view's watch holds no memory per poll: a quiet KV leaves one watch
// read pending for good, and each poll must not add a reaction to it. Measured
// in a child process with a full GC (--expose-gc).

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("_watch_memory_child.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));
const POLLS = 4_100;

Deno.test("DeliveryStore.watch() holds no memory per poll while the KV stays quiet", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--config", CONFIG, "--v8-flags=--expose-gc", CHILD, String(POLLS)],
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const growth = Number(/^growth (-?\d+)$/m.exec(stdout)?.[1]);
  assert.ok(Number.isFinite(growth), `The child did not report its growth: ${stdout}`);
  // 4,000 polls: about 300 bytes each (1.2 MB) when every poll races the pending read.
  assert.ok(growth < 400_000, `4,000 polls of a quiet KV grew the heap by ${growth} bytes`);
});
