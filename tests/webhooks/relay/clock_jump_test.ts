// A worker in its own process whose wall clock (the relay's `now`) steps an
// hour forward, or an hour back, mid-run, some entries in flight and some
// waiting for a retry: every entry is delivered at least once, each item
// under one webhook-id, none left in the outbox or leased, no dead letter.

import { spawnChild } from "../_child.ts";
import { startApp, until } from "./fixtures.ts";
import { allDelivered, assertIdle, assertSettled, fill } from "./_sleepy.ts";

const CHILD = new URL("./_clock_worker_child.ts", import.meta.url).pathname;
const N = 30;
const HOUR = 3_600_000;

/** Runs N items through a worker whose clock steps by `step` once some failed first attempts wait for a retry. */
async function jump(step: number): Promise<void> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/relay.kv`;
  const kv = await Deno.openKv(path);
  // The first attempt of each entry fails (500), later ones deliver; each answer takes 100 ms.
  const seen = new Set<string>();
  const app = startApp(async (r) => {
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (seen.has(r.id)) return new Response("ok");
    seen.add(r.id);
    return new Response("not yet", { status: 500 });
  });
  let worker = null;
  try {
    await fill(kv, app, N);
    // Retries 2 s after a failure: some wait for theirs when the clock steps.
    worker = spawnChild(CHILD, [path, "4", "1500", "1000", "2000"], { stdin: true });
    await worker.waitFor("ready");
    await app.waitFor(8);
    await worker.send(`offset ${step}`);
    await worker.waitFor(`offset ${step}`);
    await until(() => allDelivered(kv, app, N), 20_000, "every item delivered after the clock stepped");
    await assertIdle(worker.pid, "the worker");
    await worker.send("stop");
    await worker.waitFor("stopped", 10_000);
    await assertSettled(kv, app, N);
  } finally {
    await worker?.kill();
    await app.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a worker whose clock steps an hour forward mid-run delivers every entry, none left", () => jump(HOUR));
Deno.test("a worker whose clock steps an hour back mid-run delivers every entry, retries waiting included", () =>
  jump(-HOUR));
