// createReceiver()'s done marks: in KV before the 200 (a KV closed right
// after the answer keeps it), shared by the postbacks answered at the same
// time (one commit of up to ten while another is in flight), a group with a
// claim taken over meanwhile, and a mark that cannot be written.

import assert from "node:assert/strict";
import { createReceiver, createWebhooks } from "../../../webhooks/mod.ts";
import { type Bench, item, NOW, post, seed, signA, withReceiver } from "../_receiver.ts";

type Claim = { state: string; leaseUntil: number };

/**
 * A KV whose commits that mark claims done wait for `open()` (only the first
 * of them, when `firstOnly`), or fail at once (when `failing`); with the keys of each.
 */
function gatedDoneMarks(
  kv: Deno.Kv,
  { failing = false, firstOnly = false } = {},
): { kv: Deno.Kv; groups: number[]; keys: Deno.KvKey[][]; open(): void } {
  const gate = Promise.withResolvers<void>();
  const groups: number[] = [];
  const keys: Deno.KvKey[][] = [];
  const wrapped = new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          let marks = 0;
          const marked: Deno.KvKey[] = [];
          const set = op.set.bind(op);
          op.set = (key, value, options) => {
            if ((value as Partial<Claim> | null)?.state === "done") marks++, marked.push(key);
            return set(key, value, options);
          };
          const commit = op.commit.bind(op);
          op.commit = async () => {
            if (marks > 0) {
              groups.push(marks);
              keys.push(marked);
              if (failing) throw new Error("the KV went away");
              if (!firstOnly || groups.length === 1) await gate.promise;
            }
            return await commit();
          };
          return op;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv: wrapped, groups, keys, open: () => gate.resolve() };
}

async function claims(kv: Deno.Kv): Promise<Claim[]> {
  const out = [];
  for await (const entry of kv.list<Claim>({ prefix: ["webhook_postback_claim"] })) out.push(entry.value);
  return out;
}

/** A KV key as text (its byte arrays as lists of numbers), to compare keys. */
function keyText(key: Deno.KvKey): string {
  return JSON.stringify(key, (_, value) => value instanceof Uint8Array ? [...value] : value);
}

/** Waits until `done()` holds, checking every few milliseconds. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** `promise`'s value, or a failure (not a hang) when it has not settled within 10 s. */
async function within<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("still waiting after 10 s")), 10_000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** "settled", or "waiting" when `promise` has not settled after 50 ms. */
async function state(promise: Promise<unknown>): Promise<"settled" | "waiting"> {
  const timer = new Promise<"waiting">((resolve) => setTimeout(() => resolve("waiting"), 50));
  return await Promise.race([promise.then(() => "settled" as const), timer]);
}

/** What a test over a gated KV gets: the receiver's bench, the raw KV, the gate, and a sender of postback `i`. */
type Gated = Bench & { raw: Deno.Kv; gated: ReturnType<typeof gatedDoneMarks>; send(i: number): Promise<number> };

/** Runs `fn` with a receiver whose claims go to a gated `:memory:` KV; opens the gate and closes the KV after. */
async function withGated(
  options: Parameters<typeof gatedDoneMarks>[1],
  fn: (t: Gated) => Promise<void>,
): Promise<void> {
  const raw = await Deno.openKv(":memory:");
  const gated = gatedDoneMarks(raw, options);
  try {
    await withReceiver(async (bench) => {
      const send = async (i: number) => {
        const res = await bench.receiver.handle(
          post({ authorization: await signA(NOW + i) }, JSON.stringify([item()])),
        );
        return (await res.json()).received;
      };
      await fn({ ...bench, raw, gated, send });
    }, { kv: gated.kv });
  } finally {
    gated.open();
    raw.close();
  }
}

Deno.test("handle() answers 200 only once the claim's done mark is in KV", async () => {
  await withGated({}, async ({ receiver, delivered, gated, raw: kv }) => {
    const answered = receiver.handle(post({ authorization: await signA() }, JSON.stringify([item()])));
    await until(() => gated.groups.length === 1); // handed on; its mark waits at the gate
    assert.equal(await state(answered), "waiting");
    assert.equal(delivered.length, 1);
    assert.deepEqual((await claims(kv)).map((c) => c.state), ["pending"]);
    gated.open();
    assert.deepEqual(await (await answered).json(), { received: 1 });
    assert.deepEqual(await claims(kv), [{ state: "done", leaseUntil: 0 }]);
  });
});

Deno.test("a KV file closed right after the answer keeps the claim's done mark", async () => {
  const dir = await Deno.makeTempDir({ prefix: "receiver_done_" });
  try {
    const path = `${dir}/kv.sqlite3`;
    for (let i = 0; i < 5; i++) {
      const kv = await Deno.openKv(path);
      const hooks = createWebhooks(kv);
      if (i === 0) await seed(hooks);
      const receiver = createReceiver(hooks, { onPostback: () => {}, now: () => NOW });
      const res = await receiver.handle(post({ authorization: await signA(NOW + i) }, JSON.stringify([item()])));
      kv.close();
      assert.deepEqual(await res.json(), { received: 1 });
    }
    const reopened = await Deno.openKv(path);
    try {
      assert.deepEqual((await claims(reopened)).map((c) => c.state), Array(5).fill("done"));
    } finally {
      reopened.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a slow commit of one postback's mark holds up no other postback's answer", async () => {
  await withGated({ firstOnly: true }, async ({ send, gated, raw: kv }) => {
    const slow = send(0);
    await until(() => gated.groups.length === 1); // its mark's commit hangs at the gate
    assert.equal(await within(send(1)), 1); // answered while the first mark's commit still hangs
    assert.equal(await state(slow), "waiting");
    gated.open();
    assert.equal(await slow, 1);
    assert.deepEqual((await claims(kv)).map((c) => c.state), ["done", "done"]);
  });
});

Deno.test("while four writers are busy, the marks of postbacks answered meanwhile share commits of ten", async () => {
  await withGated({}, async ({ delivered, send, gated, raw: kv }) => {
    const answers = Array.from({ length: 21 }, (_, i) => send(i));
    await until(() => delivered.length === 21);
    assert.deepEqual(gated.groups, [1, 1, 1, 1]); // four alone at the gate, the other seventeen waiting
    gated.open();
    assert.deepEqual(await Promise.all(answers), Array(21).fill(1));
    assert.deepEqual(gated.groups.toSorted((a, b) => a - b), [1, 1, 1, 1, 7, 10]);
    const stored = await claims(kv);
    assert.equal(stored.length, 21);
    assert.ok(stored.every((c) => c.state === "done"));
    // Drained: the next one is committed at once again.
    assert.equal(await within(send(21)), 1);
    assert.equal(gated.groups.at(-1), 1);
  });
});

Deno.test("a group with a claim taken over meanwhile marks the others, and reports the one it could not mark", async () => {
  await withGated({}, async ({ delivered, attempts, send, gated, raw: kv }) => {
    const answers = Array.from({ length: 6 }, (_, i) => send(i));
    await until(() => delivered.length === 6);
    // Four marks wait at the gate alone, the other two queue as one group; one of those is taken over.
    assert.deepEqual(gated.groups, [1, 1, 1, 1]);
    const atGate = new Set(gated.keys.flat().map(keyText));
    const entries = [];
    for await (const entry of kv.list<Claim>({ prefix: ["webhook_postback_claim"] })) entries.push(entry);
    const queued = entries.filter((e) => !atGate.has(keyText(e.key)));
    assert.equal(queued.length, 2);
    const taken = { state: "pending", leaseUntil: 42 };
    await kv.set(queued[0].key, taken);
    gated.open();
    assert.deepEqual(await Promise.all(answers), Array(6).fill(1));
    // The group of two failed on the taken claim; each was then tried on its own.
    assert.deepEqual(gated.groups, [1, 1, 1, 1, 2, 1, 1]);
    const values = await claims(kv);
    assert.equal(values.filter((v) => v.state === "done").length, 5);
    assert.deepEqual(values.filter((v) => v.state !== "done"), [taken]);
    assert.deepEqual(
      attempts.map((a) => a.reason).filter((r) => r !== "Delivered"),
      ["Delivered; its claim could not be marked done"],
    );
  });
});

Deno.test("a done mark that cannot be written is reported, changes no answer, and leaves the claim pending", async () => {
  await withGated({ failing: true }, async ({ receiver, delivered, attempts, raw: kv }) => {
    const header = await signA();
    const res = await receiver.handle(post({ authorization: header }, JSON.stringify([item()])));
    assert.deepEqual(await res.json(), { received: 1 });
    assert.equal(attempts.at(-1)?.reason, "Delivered; its claim could not be marked done");
    assert.deepEqual((await claims(kv)).map((c) => c.state), ["pending"]);
    // Within its lease a copy is held (409): it is not handed on again, and not told it was stored.
    const copy = await receiver.handle(post({ authorization: header }, JSON.stringify([item()])));
    assert.equal(copy.status, 409);
    assert.deepEqual(await copy.json(), { error: "In progress" });
    assert.equal(delivered.length, 1);
  });
});
