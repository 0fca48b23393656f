// A worker that takes an entry whose lease ran out must check that entry on
// its own: its holder may still finish it between the list and the take (a
// finish does not move the partition's take counter). Worker A's attempt is
// held open by the app; worker B (its clock ahead, so A's lease has run out
// for it) lists the entry and its take commit is held back until A's 2xx or
// 5xx is recorded. B's take must then be refused: taken, the entry would go
// out again after the app answered 2xx, or sit twice in the outbox.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { count, fill, POSTBACK } from "./_sleepy.ts";
import { holdFirst } from "../../_hold_first.ts";
import { startApp, until } from "./fixtures.ts";

async function finishedBetween(answer: Response, expected: number): Promise<void> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/relay.kv`;
  const kvA = await Deno.openKv(path);
  const kvB = await Deno.openKv(path);
  const hold = holdFirst(kvB, (key, mutation) => key[0] === "relay_take" && mutation === "sum");
  let answerA: (r: Response) => void = () => {};
  const heldAnswer = new Promise<Response>((r) => answerA = r);
  const app = startApp(() => app.received.length === 1 ? heldAnswer : new Response("ok"));
  const options = { allowPrivateNetwork: true, leaseMs: 8_000, attemptTimeoutMs: 6_000, pollMs: 100, schedule: [100] };
  const a = createRelay(kvA, options);
  const b = createRelay(kvB, { ...options, now: () => Date.now() + 20_000 }); // A's lease has run out for B
  let workerA = null, workerB = null;
  try {
    await fill(kvA, app, 1);
    workerA = a.run({ concurrency: 1 });
    await app.waitFor(1);
    workerB = b.run({ concurrency: 1 });
    await hold.held; // B listed the entry A holds and is about to take it
    answerA(answer);
    await until(async () => (await a.forwards(POSTBACK))[0]?.attempts === 1, 10_000, "A's answer recorded");
    hold.release();
    await app.waitFor(expected);
    await new Promise((r) => setTimeout(r, 1_500)); // a wrongly taken copy goes out meanwhile
    await workerA.stop();
    await workerB.stop();
    assert.equal(app.received.length, expected, "the entry went out again after its holder finished it");
    assert.equal(await count(kvA, ["relay_due"]), 0, "a copy of the entry is left in the outbox");
    const [forward] = await a.forwards(POSTBACK);
    assert.equal(forward.state, "delivered", `the entry's forward is ${forward.state}`);
  } finally {
    answerA(new Response("ok"));
    hold.release();
    await workerA?.stop();
    await workerB?.stop();
    await a.close();
    await b.close();
    await app.close();
    kvA.close();
    kvB.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("an expired entry delivered by its holder between another worker's list and take is not sent again", async () => {
  await finishedBetween(new Response("ok"), 1);
});

Deno.test("an expired entry retried by its holder between another worker's list and take is sent once more only", async () => {
  await finishedBetween(new Response("no", { status: 500 }), 2);
});
