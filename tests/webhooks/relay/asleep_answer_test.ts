// A worker (in its own process) paused (SIGSTOP) mid-attempt, a laptop whose
// lid closed: the app answers 2xx at once, while the worker sleeps past its
// attempt's time. Woken, the worker finds the answer waiting: the attempt
// delivered, not "No answer within 1 s" (each such attempt was counted a
// failure, and an entry whose every attempt met a sleep became a dead letter
// that the app had answered 200 each time).

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { spawnChild } from "../_child.ts";
import { startApp, until } from "./fixtures.ts";
import { allDelivered, fill, POSTBACK } from "./_sleepy.ts";

const CHILD = new URL("./_clock_worker_child.ts", import.meta.url).pathname;
const N = 3;

Deno.test("a worker paused mid-attempt past its attempt time, the 2xx come meanwhile, counts the attempt delivered", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/relay.kv`;
  const kv = await Deno.openKv(path);
  let worker: ReturnType<typeof spawnChild> | null = null;
  const paused = new Set<string>();
  // The first request of each entry pauses the worker for 1.5 s (its attempt time is 1 s), and is answered at once.
  const app = startApp((r) => {
    if (!paused.has(r.id) && worker) {
      paused.add(r.id);
      const pid = worker.pid;
      Deno.kill(pid, "SIGSTOP");
      setTimeout(() => Deno.kill(pid, "SIGCONT"), 1_500);
    }
    return new Response("ok");
  });
  try {
    await fill(kv, app, N);
    // One at a time, a lease of 10 s (no other worker): the only question is how the woken worker counts its attempt.
    worker = spawnChild(CHILD, [path, "1", "10000", "1000", "100"], { stdin: true });
    await worker.waitFor("ready");
    await until(() => allDelivered(kv, app, N), 30_000, "every item delivered");
    await until(() => paused.size === N, 10_000, "every entry's first attempt paused");
    await new Promise((r) => setTimeout(r, 1_600));
    await worker.send("stop");
    await worker.waitFor("stopped", 10_000);
    const relay = createRelay(kv, { allowPrivateNetwork: true });
    try {
      assert.deepEqual((await relay.deadLetters()).values, []);
      for (const f of await relay.forwards(POSTBACK)) {
        const attempts = await relay.attempts(f.entryId);
        assert.deepEqual(
          attempts.map((a) => [a.status, a.error ?? null]),
          [[200, null]],
          `entry ${f.entryId}: the 2xx that came while the worker slept was not counted`,
        );
        assert.equal(f.state, "delivered");
        assert.equal(f.attempts, 1);
      }
      assert.equal(app.received.length, N, "an entry was sent again after its 2xx");
    } finally {
      await relay.close();
    }
  } finally {
    try {
      if (worker) Deno.kill(worker.pid, "SIGCONT");
    } catch {
      // It has exited.
    }
    await worker?.kill();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
