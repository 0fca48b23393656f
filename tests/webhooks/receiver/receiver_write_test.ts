// createReceiver(hooks, { write }): the claim and the consumer's writes in one
// commit, shared by the postbacks ready at the same time; every answer, a
// write that throws or adds a failing check, groups with a replay or a hook
// removed meanwhile, the sequence, claims per hook, and a KV that takes ten
// checks per commit.

import assert from "node:assert/strict";
import { limitedKv } from "../_limited_kv.ts";
import { AsyncLocalStorage } from "node:async_hooks";
import {
  createReceiver,
  createWebhooks,
  type Postback,
  type ReceiverAttempt,
  type ReceiverOptions,
  type Webhooks,
} from "../../../webhooks/mod.ts";
import { item, NOW, post, REF_A, seed, signA } from "../_receiver.ts";

const REF_A2 = "https://a.example/api/core/v3/webhooks/12";

/** What a write-mode bench gives its test. */
interface WriteBench {
  kv: Deno.Kv;
  hooks: Webhooks;
  handle(request: Request): Promise<Response>;
  attempts: ReceiverAttempt[];
  /** The inbox: stored items by key, with their versionstamps. */
  inbox(): Promise<Deno.KvEntry<Record<string, unknown>>[]>;
}

/** A receiver in write mode over `kv` (default a fresh `:memory:` KV) that stores each item in ["inbox", ...]. */
async function withWriter(
  fn: (bench: WriteBench) => Promise<void>,
  options: Partial<ReceiverOptions> = {},
  kv?: Deno.Kv,
): Promise<void> {
  const own = kv === undefined;
  kv ??= await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    if (own) await seed(hooks);
    await hooks.save({
      id: "hook-a2",
      tenantId: "tenant-a",
      entity: { id: "12", resources: { self: { ref: REF_A2 } } },
    });
    const attempts: ReceiverAttempt[] = [];
    const receiver = createReceiver(hooks, {
      write: (postback, atomic) => {
        if (postback.activity.throw) throw new Error("the consumer failed");
        atomic.set(["inbox", postback.postbackId, postback.index], {
          verb: postback.activity.verb,
          hook: postback.webhook.id,
          ...(postback.seq === undefined ? {} : { seq: postback.seq }),
        });
      },
      onAttempt: (attempt) => {
        attempts.push(attempt);
      },
      now: () => NOW,
      ...options,
    });
    const inbox = async () => {
      const out: Deno.KvEntry<Record<string, unknown>>[] = [];
      for await (const e of kv!.list<Record<string, unknown>>({ prefix: ["inbox"] })) out.push(e);
      return out;
    };
    await fn({ kv, hooks, handle: receiver.handle, attempts, inbox });
  } finally {
    if (own) kv.close();
  }
}

const body = (...items: unknown[]) => JSON.stringify(items.length ? items : [item()]);

Deno.test("write mode answers every refusal as onPostback mode does, storing nothing", async () => {
  await withWriter(async ({ handle, inbox }) => {
    const auth = await signA();
    assert.equal((await handle(post({ authorization: auth }, body(), "PUT"))).status, 405);
    assert.equal((await handle(post({ authorization: auth, "content-length": "9999999" }, body()))).status, 413);
    assert.equal((await handle(post({}, body()))).status, 401);
    assert.equal((await handle(post({ authorization: auth }, "{}"))).status, 400);
    const unknown = await handle(post({ authorization: await signA(NOW - 1) }, body(item("https://a.example/x"))));
    assert.equal(unknown.status, 404);
    assert.deepEqual(await inbox(), []);
  });
});

Deno.test("write mode stores every item in the claim's commit, then answers a copy 200 duplicate", async () => {
  await withWriter(async ({ handle, inbox, attempts }) => {
    const auth = await signA();
    const res = await handle(
      post({ authorization: auth }, body(item(REF_A, "jive:created"), item(REF_A2, "jive:liked"))),
    );
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { received: 2 });
    const stored = await inbox();
    assert.deepEqual(stored.map((e) => [e.key[2], e.value.verb, e.value.hook]), [
      [0, "jive:created", "hook-a"],
      [1, "jive:liked", "hook-a2"],
    ]);
    const copy = await handle(post({ authorization: auth }, body(item(REF_A, "jive:created"))));
    assert.deepEqual(await copy.json(), { received: 0, duplicate: true });
    assert.equal((await inbox()).length, 2);
    assert.equal(attempts.at(-1)?.duplicate, true);
  });
});

Deno.test("write mode writes the claims and the items with one versionstamp", async () => {
  await withWriter(async ({ kv, handle, inbox }) => {
    await handle(post({ authorization: await signA() }, body(item(), item(REF_A2))));
    const [first, second] = await inbox();
    const claims: Deno.KvEntry<unknown>[] = [];
    for await (const e of kv.list({ prefix: ["webhook_postback_claim"] })) claims.push(e);
    assert.equal(claims.length, 2, "one claim per hook");
    // Done, as JSON bytes (KV keeps bytes as they are, with no V8 serialisation per claim).
    const values = claims.map((c) => JSON.parse(new TextDecoder().decode(c.value as Uint8Array)));
    assert.deepEqual(values, [{ state: "done", leaseUntil: 0 }, { state: "done", leaseUntil: 0 }]);
    assert.deepEqual(new Set([first.versionstamp, second.versionstamp, ...claims.map((c) => c.versionstamp)]).size, 1);
  });
});

Deno.test("claims are keyed by the header's timestamp first, so newer headers' claims sort after older ones'", async () => {
  await withWriter(async ({ kv, handle }) => {
    for (const at of [NOW - 2_000, NOW - 60_000, NOW - 1_000]) {
      assert.equal((await handle(post({ authorization: await signA(at) }, body(item())))).status, 200);
    }
    const keys: Deno.KvKey[] = [];
    for await (const e of kv.list({ prefix: ["webhook_postback_claim"] })) keys.push(e.key);
    assert.deepEqual(keys.map((key) => key[1]), [NOW - 60_000, NOW - 2_000, NOW - 1_000]);
    assert.ok(keys.every((key) => key.length === 3 && /^[0-9a-f]{64}$/.test(String(key[2]))));
  });
});

Deno.test("write mode: a write that throws answers 500, stores nothing, and the retry is delivered", async () => {
  await withWriter(async ({ handle, inbox, attempts }) => {
    const auth = await signA();
    const failing = await handle(
      post({ authorization: auth }, body(item(), { webhook: REF_A, activity: { throw: 1 } })),
    );
    assert.equal(failing.status, 500);
    assert.deepEqual(await failing.json(), { error: "Internal error" });
    assert.equal(attempts.at(-1)?.reason, "The consumer threw");
    assert.deepEqual(await inbox(), [], "nothing of the postback, not even its first item");
    const retry = await handle(post({ authorization: auth }, body(item(), item())));
    assert.deepEqual(await retry.json(), { received: 2 });
    assert.equal((await inbox()).length, 2);
  });
});

Deno.test("write mode: a check added by write that fails answers 500 and stores nothing", async () => {
  await withWriter(async ({ kv, handle, inbox, attempts }) => {
    await kv.set(["gate"], "closed");
    const res = await handle(post({ authorization: await signA() }, body()));
    assert.equal(res.status, 500);
    assert.equal(attempts.at(-1)?.reason, "A check added by write no longer held");
    assert.deepEqual(await inbox(), []);
    // The header is not claimed: the platform's retry is decided afresh (and fails the same way here).
    const claims: unknown[] = [];
    for await (const e of kv.list({ prefix: ["webhook_postback_claim"] })) claims.push(e);
    assert.deepEqual(claims, []);
  }, {
    write: (postback: Postback, atomic: Deno.AtomicOperation) => {
      atomic.check({ key: ["gate"], versionstamp: null }).set(["inbox", postback.postbackId], 1);
    },
  });
});

Deno.test("write mode: a group with a replay stores the others in one commit and answers the replay duplicate", async () => {
  await withWriter(async ({ handle, inbox }) => {
    const replayed = await signA(NOW - 100);
    assert.deepEqual(await (await handle(post({ authorization: replayed }, body()))).json(), { received: 1 });
    const fresh = await Promise.all(Array.from({ length: 12 }, (_, i) => signA(NOW - 1000 - i)));
    const answers = await Promise.all([
      ...fresh.map((auth) => handle(post({ authorization: auth }, body()))),
      handle(post({ authorization: replayed }, body())),
    ]);
    const bodies = await Promise.all(answers.map((r) => r.json()));
    assert.deepEqual(bodies.at(-1), { received: 0, duplicate: true });
    assert.ok(bodies.slice(0, -1).every((b) => b.received === 1), JSON.stringify(bodies));
    const stored = await inbox();
    assert.equal(stored.length, 13);
    // One group at a time on a local KV: ready together, the twelve share commits, fewer than postbacks. (A remote
    // KV takes up to 16 groups in flight, and these touch no key another writes: each may go at once there.)
    const commits = new Set(stored.map((e) => e.versionstamp)).size;
    if (Deno.env.get("KV_CONNECT") !== "1") assert.ok(commits < 12, `${commits} commits`);
  });
});

Deno.test("write mode: a group where one member's cached hook was removed meanwhile stores the others; that one is 404", async () => {
  await withWriter(async ({ hooks, handle, inbox }) => {
    // Warm the cache with both hooks, then remove one behind the receiver's back.
    assert.equal((await handle(post({ authorization: await signA(NOW - 1) }, body(item(REF_A2))))).status, 200);
    assert.equal((await handle(post({ authorization: await signA(NOW - 2) }, body(item(REF_A))))).status, 200);
    await hooks.remove("hook-a2");
    const auths = await Promise.all(Array.from({ length: 9 }, (_, i) => signA(NOW - 100 - i)));
    const answers = await Promise.all(
      auths.map((auth, i) => handle(post({ authorization: auth }, body(item(i === 4 ? REF_A2 : REF_A))))),
    );
    assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 200, 404, 200, 200, 200, 200]);
    await Promise.all(answers.map((r) => r.body?.cancel()));
    assert.equal((await inbox()).length, 2 + 8);
  });
});

Deno.test("write mode with a sequence numbers every item 1, 2, 3, ... in commit order, across two receivers", async () => {
  const dir = await Deno.makeTempDir({ prefix: "receiver_write_" });
  const path = `${dir}/kv.sqlite3`;
  const [a, b] = [await Deno.openKv(path), await Deno.openKv(path)];
  try {
    await seed(createWebhooks(a));
    const sent: Promise<Response>[] = [];
    await withWriter(
      async (one) => {
        await withWriter(
          async (two) => {
            for (let i = 0; i < 30; i++) {
              const auth = await signA(NOW - i);
              sent.push((i % 2 ? one : two).handle(post({ authorization: auth }, body(item(), item(REF_A2)))));
            }
            const answers = await Promise.all(sent);
            assert.ok(answers.every((r) => r.status === 200));
            await Promise.all(answers.map((r) => r.body?.cancel()));
          },
          { sequence: ["seq"] },
          b,
        );
      },
      { sequence: ["seq"] },
      a,
    );
    const rows: { seq: number; versionstamp: string; index: number }[] = [];
    for await (const e of a.list<{ seq: number }>({ prefix: ["inbox"] })) {
      rows.push({ seq: e.value.seq, versionstamp: e.versionstamp, index: e.key[2] as number });
    }
    assert.equal(rows.length, 60);
    assert.deepEqual(rows.map((r) => r.seq).sort((x, y) => x - y), Array.from({ length: 60 }, (_, i) => i + 1));
    assert.equal((await a.get(["seq"])).value, 60);
    // Commit order: a later number never has an earlier versionstamp.
    const bySeq = rows.sort((x, y) => x.seq - y.seq);
    for (let i = 1; i < bySeq.length; i++) assert.ok(bySeq[i].versionstamp >= bySeq[i - 1].versionstamp);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a header is claimed per hook: same-millisecond postbacks to two hooks are both stored, replays are not", async () => {
  await withWriter(async ({ handle, inbox }) => {
    const auth = await signA(); // the platform signs no body: one header for both
    const [toA, toA2] = await Promise.all([
      handle(post({ authorization: auth }, body(item(REF_A)))),
      handle(post({ authorization: auth }, body(item(REF_A2)))),
    ]);
    assert.deepEqual([await toA.json(), await toA2.json()], [{ received: 1 }, { received: 1 }]);
    const stored = await inbox();
    assert.equal(stored.length, 2);
    assert.notEqual(stored[0].key[1], stored[1].key[1], "each postback has an id of its own");
    // Replayed to a hook it already reached, whatever the body: a duplicate.
    for (const replay of [body(item(REF_A, "jive:liked")), body(item(REF_A2)), body(item(REF_A), item(REF_A2))]) {
      assert.deepEqual(await (await handle(post({ authorization: auth }, replay))).json(), {
        received: 0,
        duplicate: true,
      });
    }
    assert.equal((await inbox()).length, 2);
  });
});

Deno.test("write runs in the request's async context", async () => {
  const store = new AsyncLocalStorage<string>();
  const seen: [string | undefined, unknown][] = [];
  await withWriter(async ({ handle }) => {
    const auths = await Promise.all(Array.from({ length: 8 }, (_, i) => signA(NOW - i)));
    await Promise.all(
      auths.map((auth, i) =>
        store.run(
          `request ${i}`,
          () => handle(post({ authorization: auth }, body({ webhook: REF_A, activity: { i } }))),
        )
      ),
    );
  }, {
    write: (postback: Postback, atomic: Deno.AtomicOperation) => {
      seen.push([store.getStore(), postback.activity.i]);
      atomic.set(["inbox", postback.postbackId], 1);
    },
  });
  assert.equal(seen.length, 8);
  for (const [context, i] of seen) assert.equal(context, `request ${i}`);
});

Deno.test("write mode on a KV that takes ten checks per commit (as KV Connect) still stores every postback", async () => {
  const raw = await Deno.openKv(":memory:");
  const { kv: limited, seen } = limitedKv(raw);
  try {
    await seed(createWebhooks(raw));
    await withWriter(
      async ({ handle, inbox }) => {
        const auths = await Promise.all(Array.from({ length: 40 }, (_, i) => signA(NOW - i)));
        const answers = await Promise.all(auths.map((auth) => handle(post({ authorization: auth }, body()))));
        assert.ok(answers.every((r) => r.status === 200));
        await Promise.all(answers.map((r) => r.body?.cancel()));
        assert.equal((await inbox()).length, 40);
      },
      { sequence: ["seq"] },
      limited,
    );
    assert.ok(seen.refused <= 1, `refused ${seen.refused} commits`);
  } finally {
    raw.close();
  }
});

Deno.test("write mode: writes too large for one atomic operation answer 500 and store nothing", async () => {
  await withWriter(async ({ handle, inbox, attempts }) => {
    const res = await handle(post({ authorization: await signA() }, body()));
    assert.equal(res.status, 500);
    assert.equal(attempts.at(-1)?.reason, "The commit failed");
    assert.deepEqual(await inbox(), []);
  }, {
    write: (postback: Postback, atomic: Deno.AtomicOperation) => {
      for (let i = 0; i < 1001; i++) atomic.set(["inbox", postback.postbackId, i], i);
    },
  });
});

Deno.test("write is called once per item: never for a copy of a stored header, once when its shared commit failed", async () => {
  const calls = new Map<string, number>();
  await withWriter(async ({ hooks, handle, inbox }) => {
    // A copy of a header this process stored is a duplicate without a call, one after the other or at once.
    const auth = await signA(NOW - 100);
    assert.equal((await handle(post({ authorization: auth }, body()))).status, 200);
    assert.deepEqual(await (await handle(post({ authorization: auth }, body()))).json(), {
      received: 0,
      duplicate: true,
    });
    const twice = await signA(NOW - 200);
    const both = await Promise.all([1, 2].map(() => handle(post({ authorization: twice }, body()))));
    assert.deepEqual((await Promise.all(both.map((r) => r.json()))).map((b) => b.received).sort(), [0, 1]);
    // A group that fails for one member (its cached hook removed meanwhile) goes again without calling write.
    assert.equal((await handle(post({ authorization: await signA(NOW - 300) }, body(item(REF_A2))))).status, 200);
    await hooks.remove("hook-a2");
    const auths = await Promise.all(Array.from({ length: 9 }, (_, i) => signA(NOW - 400 - i)));
    const answers = await Promise.all(
      auths.map((a, i) => handle(post({ authorization: a }, body(item(i === 4 ? REF_A2 : REF_A), item())))),
    );
    assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 200, 404, 200, 200, 200, 200]);
    await Promise.all(answers.map((r) => r.body?.cancel()));
    assert.equal((await inbox()).length, 1 + 1 + 1 + 16);
  }, {
    write: (postback: Postback, atomic: Deno.AtomicOperation) => {
      const key = `${postback.postbackId} ${postback.index}`;
      calls.set(key, (calls.get(key) ?? 0) + 1);
      atomic.set(["inbox", postback.postbackId, postback.index], 1);
    },
  });
  assert.deepEqual([...calls.values()].filter((n) => n !== 1), [], "an item was written twice");
});

Deno.test({
  name: "a copy of a header stored 25,000 postbacks before is still a duplicate without a call to write",
  // What the process remembers, whatever the KV: over KV Connect (the suite's second run) 25,000 commits take minutes.
  ignore: Deno.env.get("KV_CONNECT") === "1",
}, async () => {
  let calls = 0;
  await withWriter(async ({ handle }) => {
    const first = await signA(NOW - 1);
    assert.equal((await handle(post({ authorization: first }, body()))).status, 200);
    // Enough postbacks after it that the claims this process remembers turn over a generation.
    for (let sent = 0; sent < 25_000; sent += 100) {
      const auths = await Promise.all(Array.from({ length: 100 }, (_, i) => signA(NOW - 2 - sent - i)));
      const answers = await Promise.all(auths.map((a) => handle(post({ authorization: a }, body()))));
      assert.deepEqual(new Set(answers.map((r) => r.status)), new Set([200]));
      await Promise.all(answers.map((r) => r.body?.cancel()));
    }
    const before = calls;
    assert.deepEqual(await (await handle(post({ authorization: first }, body()))).json(), {
      received: 0,
      duplicate: true,
    });
    assert.equal(calls, before, "write was called for a copy of a stored header");
  }, {
    write: (postback: Postback, atomic: Deno.AtomicOperation) => {
      calls++;
      atomic.set(["inbox", postback.postbackId, postback.index], 1);
    },
  });
});
