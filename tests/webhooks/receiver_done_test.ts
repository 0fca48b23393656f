// createReceiver()'s done marks: written after the answer, in the
// background, grouped in one commit while another is in flight; a copy that
// meets a claim past its lease waits for them; flush() waits for them; a mark
// that cannot be written changes no answer.

import assert from "node:assert/strict";
import { item, NOW, post, seed, signA, withReceiver } from "./_receiver.ts";
import { createReceiver, createWebhooks } from "../../webhooks/mod.ts";
import { claims, gatedDoneMarks, state } from "../_done_marks.ts";

Deno.test("handle() answers before the claim is marked done, and flush() settles once the mark is in KV", async () => {
  const kv = await Deno.openKv(":memory:");
  const gated = gatedDoneMarks(kv);
  try {
    await withReceiver(async ({ receiver, delivered }) => {
      const answered = receiver.handle(post({ authorization: await signA() }, JSON.stringify([item()])));
      // Answered while its done mark waits at the gate: the claim is pending, within its lease.
      const settledFirst = await state(answered);
      if (settledFirst === "waiting") gated.open();
      assert.equal(settledFirst, "settled");
      assert.deepEqual(await (await answered).json(), { received: 1 });
      assert.equal(delivered.length, 1);
      assert.deepEqual(gated.groups, [1]);
      assert.equal((await claims(kv))[0].value.state, "pending");
      const flushed = receiver.flush();
      assert.equal(await state(flushed), "waiting");
      gated.open();
      await flushed;
      assert.deepEqual((await claims(kv)).map((e) => e.value), [{ state: "done", leaseUntil: 0 }]);
    }, { kv: gated.kv });
  } finally {
    kv.close();
  }
});

Deno.test("a copy past the claim's lease while its done mark is on its way is a duplicate, not a takeover", async () => {
  const kv = await Deno.openKv(":memory:");
  const gated = gatedDoneMarks(kv);
  try {
    await withReceiver(async ({ receiver, delivered, clock }) => {
      const header = await signA();
      await (await receiver.handle(post({ authorization: header }, JSON.stringify([item()])))).body?.cancel();
      clock.now = NOW + 31_000; // past the 30 s lease, still inside the 5 min window
      const copy = receiver.handle(post({ authorization: header }, JSON.stringify([item()])));
      assert.equal(await state(copy), "waiting"); // it waits for the mark instead of taking the claim over
      gated.open();
      assert.deepEqual(await (await copy).json(), { received: 0, duplicate: true });
      assert.equal(delivered.length, 1);
    }, { kv: gated.kv });
  } finally {
    kv.close();
  }
});

Deno.test("done marks that wait while one is written go in one commit of at most ten", async () => {
  const kv = await Deno.openKv(":memory:");
  const gated = gatedDoneMarks(kv);
  try {
    await withReceiver(async ({ receiver, delivered }) => {
      const answers = await Promise.all(Array.from({ length: 21 }, async (_, i) => {
        const res = await receiver.handle(post({ authorization: await signA(NOW + i) }, JSON.stringify([item()])));
        return (await res.json()).received;
      }));
      assert.deepEqual(answers, Array(21).fill(1));
      assert.equal(delivered.length, 21);
      gated.open();
      await receiver.flush();
      // The first alone (nothing else waited), then the twenty that queued behind it, ten per commit.
      assert.deepEqual(gated.groups, [1, 10, 10]);
      const entries = await claims(kv);
      assert.equal(entries.length, 21);
      assert.ok(entries.every((e) => e.value.state === "done"));
    }, { kv: gated.kv });
  } finally {
    kv.close();
  }
});

Deno.test("a group whose claim was taken over meanwhile still marks the others, and leaves the taken one alone", async () => {
  const kv = await Deno.openKv(":memory:");
  const gated = gatedDoneMarks(kv);
  try {
    await withReceiver(async ({ receiver }) => {
      for (let i = 0; i < 3; i++) {
        await (await receiver.handle(post({ authorization: await signA(NOW + i) }, JSON.stringify([item()]))))
          .body?.cancel();
      }
      // The first mark waits at the gate, the other two queue as one group; one of them is taken over.
      const [, second] = await claims(kv);
      const taken = { state: "pending", leaseUntil: 42 };
      await kv.set(second.key, taken);
      gated.open();
      await receiver.flush();
      assert.deepEqual(gated.groups.slice(0, 2), [1, 2]);
      const values = (await claims(kv)).map((e) => e.value);
      assert.deepEqual(values.filter((v) => v.state === "done").length, 2);
      assert.deepEqual(values.filter((v) => v.state !== "done"), [taken]);
    }, { kv: gated.kv });
  } finally {
    kv.close();
  }
});

Deno.test("a done mark that cannot be written changes no answer, and flush() still settles", async () => {
  const kv = await Deno.openKv(":memory:");
  const gated = gatedDoneMarks(kv, true);
  try {
    await withReceiver(async ({ receiver, delivered, attempts }) => {
      const header = await signA();
      const res = await receiver.handle(post({ authorization: header }, JSON.stringify([item()])));
      assert.deepEqual(await res.json(), { received: 1 });
      assert.equal(attempts.at(-1)?.reason, "Delivered");
      gated.open();
      await receiver.flush();
      // Left pending: within its lease a copy is still a duplicate.
      assert.equal((await claims(kv))[0].value.state, "pending");
      const copy = await receiver.handle(post({ authorization: header }, JSON.stringify([item()])));
      assert.deepEqual(await copy.json(), { received: 0, duplicate: true });
      assert.equal(delivered.length, 1);
    }, { kv: gated.kv });
  } finally {
    kv.close();
  }
});

Deno.test("flush() waits for the marks handed over before it, not for those of a steady stream after it", async () => {
  const kv = await Deno.openKv(":memory:");
  let fed = 0;
  let feed = async () => {};
  const gated = gatedDoneMarks(kv, false, () => feed());
  try {
    await withReceiver(async ({ receiver }) => {
      const send = async (i: number) =>
        await (await receiver.handle(post({ authorization: await signA(NOW + i) }, JSON.stringify([item()]))))
          .body?.cancel();
      for (let i = 0; i < 3; i++) await send(i);
      const flushed = receiver.flush();
      let done = false;
      flushed.then(() => done = true);
      // From now on every commit of marks waits for another postback's answer, whose mark queues behind it.
      feed = async () => {
        if (!done && fed < 200) await send(100 + fed++);
      };
      gated.open();
      await flushed;
      assert.ok(fed < 20, `flush() waited for ${fed} later postbacks`);
      feed = async () => {};
      await receiver.flush();
    }, { kv: gated.kv });
  } finally {
    kv.close();
  }
});

Deno.test("a done mark is sent before handle() returns: a KV file closed right after the answer still gets it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "receiver_done_" });
  try {
    const path = `${dir}/kv.sqlite3`;
    const kv = await Deno.openKv(path);
    const hooks = createWebhooks(kv);
    await seed(hooks);
    const receiver = createReceiver(hooks, { onPostback: () => {}, now: () => NOW });
    const res = await receiver.handle(post({ authorization: await signA() }, JSON.stringify([item()])));
    kv.close(); // no flush()
    assert.deepEqual(await res.json(), { received: 1 });
    const reopened = await Deno.openKv(path);
    try {
      assert.deepEqual((await claims(reopened)).map((e) => e.value), [{ state: "done", leaseUntil: 0 }]);
    } finally {
      reopened.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
