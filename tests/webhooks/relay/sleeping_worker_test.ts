// A worker in its own process paused (SIGSTOP) mid-delivery for longer than
// its lease while a second worker takes the expired entries, then let go on
// (SIGCONT): every entry is delivered at least once, each item under one
// webhook-id, none left in the outbox or leased, no dead letter, forwards and
// attempts agree, and the woken worker neither crashes nor spins.

import { spawnChild } from "../_child.ts";
import { startApp, until } from "./fixtures.ts";
import { allDelivered, assertIdle, assertSettled, fill } from "./_sleepy.ts";

const CHILD = new URL("./_clock_worker_child.ts", import.meta.url).pathname;
const N = 30;

Deno.test("a worker paused past its lease mid-delivery, then woken: all delivered once an id, none left, no spin", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/relay.kv`;
  const kv = await Deno.openKv(path);
  // Each answer takes 300 ms, so the paused worker holds attempts in flight and entries taken.
  const app = startApp(() => new Promise((r) => setTimeout(() => r(new Response("ok")), 300)));
  let sleeper = null, other = null;
  try {
    await fill(kv, app, N);
    sleeper = spawnChild(CHILD, [path, "4", "1500", "1000"], { stdin: true });
    await sleeper.waitFor("ready");
    await app.waitFor(4);
    Deno.kill(sleeper.pid, "SIGSTOP");
    const stoppedAt = Date.now();
    other = spawnChild(CHILD, [path, "4", "1500", "1000"], { stdin: true });
    await other.waitFor("ready");
    await until(() => allDelivered(kv, app, N), 30_000, "every item delivered while the first worker sleeps");
    // Woken 2 s after it stopped at the soonest: well past every lease it held (1.5 s, each taken before it stopped).
    // The other worker cannot have finished the entries the sleeper held before those leases ran out, so this is
    // most often no wait at all.
    await new Promise((r) => setTimeout(r, Math.max(0, stoppedAt + 2_000 - Date.now())));
    Deno.kill(sleeper.pid, "SIGCONT");
    await new Promise((r) => setTimeout(r, 2_000)); // its timers fire, its finishes commit
    await assertIdle(sleeper.pid, "the woken worker");
    await sleeper.send("stop");
    await sleeper.waitFor("stopped", 10_000);
    await other.send("stop");
    await other.waitFor("stopped", 10_000);
    await assertSettled(kv, app, N);
  } finally {
    try {
      if (sleeper) Deno.kill(sleeper.pid, "SIGCONT");
    } catch {
      // It has exited.
    }
    await sleeper?.kill();
    await other?.kill();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
