// The test server's latency knob: every answer held back by the given time (a
// KV in another region), measured against the same server without it.

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { startKvConnectServer } from "../../kvconnect/mod.ts";
import { TEST_TOKEN, withRemote } from "./_open.ts";

const LATENCY_MS = 300;

/** The time `fn` takes, ms. */
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** The time of one snapshot read and of one atomic commit, over a client whose metadata exchange is done. */
async function readAndCommit(kv: Deno.Kv): Promise<{ read: number; commit: number }> {
  await kv.get(["warm"]); // the metadata exchange, once per client
  const read = await timed(() => kv.get(["k"]));
  const commit = await timed(async () => {
    const result = await kv.atomic().check({ key: ["k"], versionstamp: null }).set(["k"], 1).commit();
    assert.equal(result.ok, true);
  });
  return { read, commit };
}

Deno.test("latencyMs: a snapshot read and a commit take at least the latency, and less without it", async () => {
  let near = { read: 0, commit: 0 };
  let far = { read: 0, commit: 0 };
  await withRemote(async (kv) => {
    near = await readAndCommit(kv);
  });
  const server = await startKvConnectServer({ token: TEST_TOKEN, latencyMs: LATENCY_MS });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const kv = await Deno.openKv(server.url);
  try {
    far = await readAndCommit(kv);
    // The commit was made (its answer only came late).
    assert.equal((await kv.get(["k"])).value, 1);
  } finally {
    kv.close();
    await server.close();
  }
  assert.ok(far.read >= LATENCY_MS, `read with the knob: ${far.read} ms`);
  assert.ok(far.commit >= LATENCY_MS, `commit with the knob: ${far.commit} ms`);
  assert.ok(near.read < far.read, `read without the knob: ${near.read} ms, with it ${far.read} ms`);
  assert.ok(near.commit < far.commit, `commit without the knob: ${near.commit} ms, with it ${far.commit} ms`);
});

Deno.test("latencyMs: a watch starts late, and reports a change no sooner than the latency after it", async () => {
  const server = await startKvConnectServer({ token: TEST_TOKEN, latencyMs: LATENCY_MS });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const kv = await Deno.openKv(server.url);
  try {
    await kv.get(["warm"]);
    const opened = performance.now();
    const reader = kv.watch([["w"]]).getReader();
    try {
      const first = await reader.read();
      assert.equal(first.value?.[0].versionstamp, null);
      // The answer's start and its first chunk are held back alike: they travel together.
      const firstAfter = performance.now() - opened;
      assert.ok(firstAfter >= LATENCY_MS, `first delivery after ${firstAfter} ms`);
      const written = performance.now();
      const set = kv.set(["w"], "changed");
      const next = await reader.read();
      const seen = performance.now() - written;
      assert.equal(next.value?.[0].value, "changed");
      assert.ok(seen >= LATENCY_MS, `change seen after ${seen} ms`);
      assert.equal((await set).ok, true);
    } finally {
      await reader.cancel();
    }
  } finally {
    kv.close();
    await server.close();
  }
});

Deno.test("startKvConnectServer() refuses a latency that is not a non-negative finite number", async () => {
  for (const latencyMs of [-1, NaN, Infinity]) {
    await assert.rejects(startKvConnectServer({ latencyMs }), {
      name: "RangeError",
      message:
        `Cannot start the KV Connect server: 'latencyMs' must be a non-negative finite number of milliseconds, got ${latencyMs}`,
    });
  }
  await assert.rejects(startKvConnectServer({ latencyMs: "20" as unknown as number }), {
    name: "TypeError",
    message: "Cannot start the KV Connect server: 'latencyMs' must be a number of milliseconds, got 20",
  });
});

Deno.test("deno task kvconnect --latency: a value that is not a non-negative number is a usage error", async () => {
  const main = fileURLToPath(new URL("../../kvconnect/main.ts", import.meta.url));
  const config = fileURLToPath(new URL("../../deno.json", import.meta.url));
  for (const value of ["-5", "abc", ""]) {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--config", config, main, `--latency=${value}`],
      stdout: "null",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    const text = new TextDecoder().decode(stderr);
    assert.equal(code, 2, text);
    assert.match(
      text,
      new RegExp(
        `'--latency' must be a non-negative finite number of milliseconds, got ${value}\\nUsage: deno task kvconnect .*--latency MS`,
      ),
    );
  }
});

Deno.test("startKvConnectServer() refuses a latency past setTimeout's limit, which would hold nothing back", async () => {
  // A timer past 2^31 - 1 ms fires after 1 ms: such a latency would be shown, and not applied.
  for (const latencyMs of [2 ** 31, 1e20]) {
    await assert.rejects(startKvConnectServer({ latencyMs }), {
      name: "RangeError",
      message:
        `Cannot start the KV Connect server: 'latencyMs' must be at most 2147483647 milliseconds (about 24.8 days), got ${latencyMs}`,
    });
  }
});
