// createReceiver(hooks, { write }): what write mode stores. Every refusal
// stores nothing; the claim and the items share one commit and versionstamp;
// claims are keyed by the header's timestamp first and claimed per hook; and
// the sequence numbers items in commit order across two receivers.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { item, NOW, post, REF_A, seed, signA } from "../_receiver.ts";
import { body, REF_A2, withWriter } from "./_write_bench.ts";

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
