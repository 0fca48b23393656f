// API.md: relay.attempts() keeps "the first 1 KiB of the response", and a
// hostile destination must not grow a worker's memory. Deno's fetch asks for
// gzip and br and inflates what comes back, while `content-length` still
// tells the compressed size: a few hundred bytes of brotli that inflate to
// 256 MiB, or 60 KiB of gzip that inflate to 60 MiB, pass for a small body.
// The growth is read from the peak resident size (VmHWM, reset through
// /proc/self/clear_refs) of a child process that runs the relay, since the
// inflated copy is garbage once the attempt ends: read in this process, it
// counted what every other test module of a `--parallel` run allocated
// meanwhile.

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("_compressed_answer_child.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../../deno.json", import.meta.url));
const MIB = 1024 * 1024;

Deno.test("an answer of a few KiB compressed that inflates to 60 or 256 MiB is read to 1 KiB, not inflated whole", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--config", CONFIG, CHILD],
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const seen = stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line));
  assert.deepEqual(seen.map((s) => s.way), ["br", "gzip"], stdout);
  for (const { way, sent, status, kept, grown } of seen) {
    assert.ok(sent <= 64 * 1024, `${way}: ${sent} bytes sent`);
    assert.equal(status, 500, way);
    assert.ok(kept <= 1_024, `${way}: at most 1 KiB kept`);
    assert.ok(grown < 32 * MIB, `${way}: the peak resident size grew ${Math.round(grown / MIB)} MiB`);
  }
});
