// createReceiver(hooks, { write }): postbacks ready at the same time share a
// commit. A group with a replay, or with a hook removed meanwhile, stores the
// others; and a KV that takes ten checks per commit still stores them all.

import assert from "node:assert/strict";
import { limitedKv } from "../_limited_kv.ts";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { item, NOW, post, REF_A, seed, signA } from "../_receiver.ts";
import { body, REF_A2, withWriter } from "./_write_bench.ts";

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
