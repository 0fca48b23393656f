// A worker that lost its lease mid-attempt must not finish the entry as if it
// still held it: worker A's attempt is held open by the app while worker B
// (its clock ahead, so A's lease has run out for it) takes the same entry and
// delivers it; A's late answer (a 500, or A giving the entry back) then comes
// in. A retry, death or give-back committed without checking the held key
// would bring the delivered entry back to the outbox (sent again, its forward
// set back to pending) or dead-letter it.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { count, fill, POSTBACK } from "./_sleepy.ts";
import { startApp, until } from "./fixtures.ts";

async function lostLease(late: Response | "aborted", schedule: number[]): Promise<void> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/relay.kv`;
  const kvA = await Deno.openKv(path);
  const kvB = await Deno.openKv(path);
  let release: (r: Response) => void = () => {};
  const held = new Promise<Response>((r) => release = r);
  const app = startApp(() => app.received.length === 1 ? held : new Response("ok"));
  const options = { allowPrivateNetwork: true, leaseMs: 8_000, attemptTimeoutMs: 6_000, pollMs: 100, schedule };
  const a = createRelay(kvA, options);
  const b = createRelay(kvB, { ...options, now: () => Date.now() + 20_000 }); // A's lease has run out for B
  let workerA = null, workerB = null;
  try {
    await fill(kvA, app, 1);
    workerA = a.run({ concurrency: 1 });
    await app.waitFor(1);
    workerB = b.run({ concurrency: 1 });
    await app.waitFor(2);
    await until(async () => (await b.forwards(POSTBACK))[0]?.state === "delivered", 10_000, "B delivered");
    await workerB.stop();
    if (late === "aborted") {
      const stopping = workerA.stop(); // A's attempt is aborted: A gives the entry back
      release(new Response("ok"));
      await stopping;
    } else {
      release(late);
    }
    await new Promise((r) => setTimeout(r, 1_500)); // A's finish commits; a wrongly returned entry is due again
    await workerA.stop();
    assert.equal(app.received.length, 2, "the entry delivered by B was sent again");
    assert.equal(await count(kvA, ["relay_due"]), 0, "the delivered entry is back in the outbox");
    assert.deepEqual((await a.deadLetters()).values, [], "the delivered entry became a dead letter");
    const [forward] = await a.forwards(POSTBACK);
    assert.equal(forward.state, "delivered", `the delivered entry's forward is ${forward.state}`);
  } finally {
    release(new Response("ok"));
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

Deno.test("a worker that lost its lease and then got a 500 does not put the delivered entry back", async () => {
  await lostLease(new Response("no", { status: 500 }), [100]);
});

Deno.test("a worker that lost its lease and then got its last 500 does not dead-letter the delivered entry", async () => {
  await lostLease(new Response("no", { status: 500 }), []);
});

Deno.test("a worker that lost its lease and stops mid-attempt does not give the delivered entry back", async () => {
  await lostLease("aborted", [100]);
});
