// The test preload of the second run: with KV_CONNECT=1 every Deno.openKv of
// the process goes through KV Connect, ":memory:" fresh each time and a file
// path shared, and what the KV holds stays in the file.

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("with KV_CONNECT=1 the preload serves every Deno.openKv over KV Connect, one database per file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kvconnect_preload_" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--config",
        `${root}deno.json`,
        "--preload",
        `${root}kvconnect/preload.ts`,
        `${root}tests/kvconnect/_preload_child.ts`,
        `${dir}/data.kv`,
      ],
      env: { KV_CONNECT: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const report = JSON.parse(new TextDecoder().decode(out.stdout).trim());
    assert.equal(report.memoryIsolated, true);
    assert.equal(report.fileShared, "shared");
    assert.match(report.refused, /Too many checks included in atomic write\./);
    const kv = await Deno.openKv(`${dir}/data.kv`);
    try {
      assert.equal((await kv.get(["f"])).value, "shared");
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
