// createReceiver over KV Connect (the project's server, Deno's own client),
// which takes ten checks per atomic operation: every check the receiver puts
// in a commit (a claim per hook, the sequence counter, the cached community,
// rotation and record checks) fits, so no postback is answered 500 on every
// retry; one whose own checks cannot fit is 413 at once.

import assert from "node:assert/strict";
import { startKvConnectServer } from "../../../kvconnect/mod.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";
import { createReceiver, createWebhooks, type ReceiverOptions, type Webhooks } from "../../../webhooks/mod.ts";
import { item, post, SECRET_A, seed, signA } from "../_receiver.ts";

/** Runs `fn` with Deno's own client on a fresh KV Connect server over `:memory:`; closes both. */
async function withRemote(fn: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const server = await startKvConnectServer({ path: ":memory:", token: TEST_TOKEN });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const kv = await Deno.openKv(server.url);
  try {
    await fn(kv);
  } finally {
    kv.close();
    await server.close();
  }
}

/** The self URL of hook `n` of tenant A (n ≥ 100, clear of the fixtures' hooks). */
const ref = (n: number) => `https://a.example/api/core/v3/webhooks/${n}`;

/** Saves hooks 100 .. 100 + count - 1 of tenant A. */
async function saveHooks(hooks: Webhooks, count: number): Promise<void> {
  for (let n = 100; n < 100 + count; n++) {
    await hooks.save({
      id: `hook-${n}`,
      tenantId: "tenant-a",
      entity: { id: String(n), resources: { self: { ref: ref(n) } } },
    });
  }
}

/** A body naming the first `hooks` of those hooks, one item each. */
function bodyOf(hooks: number): string {
  return JSON.stringify(Array.from({ length: hooks }, (_, i) => item(ref(100 + i))));
}

/** A write-mode receiver storing every item in ["inbox", seq] (or by postback id without a sequence). */
function writer(hooks: Webhooks, options: Partial<ReceiverOptions> = {}) {
  return createReceiver(hooks, {
    write: (postback, atomic) => {
      atomic.set(["inbox", postback.seq ?? `${postback.postbackId}/${postback.index}`], postback.webhook.id);
    },
    ...options,
  });
}

async function inboxSize(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: ["inbox"] })) n++;
  return n;
}

Deno.test("over KV Connect with a sequence, nine hooks are stored and ten are 413 every time (never 500)", async () => {
  await withRemote(async (kv) => {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    await saveHooks(hooks, 10);
    const receiver = writer(hooks, { sequence: ["seq"] });
    const at = Date.now();
    // Each try is the platform's retry: the same header and body.
    for (let attempt = 0; attempt < 3; attempt++) {
      const res = await receiver.handle(post({ authorization: await signA(at) }, bodyOf(10)));
      const body = await res.json();
      assert.equal(res.status, 413, `try ${attempt}: ${JSON.stringify(body)}`);
      assert.match(body.error, /at most 9 webhooks/);
    }
    assert.equal(await inboxSize(kv), 0);
    const nine = await receiver.handle(post({ authorization: await signA(at + 1) }, bodyOf(9)));
    assert.deepEqual([nine.status, await nine.json()], [200, { received: 9 }]);
    assert.equal((await kv.get(["seq"])).value, 9);
    assert.equal(await inboxSize(kv), 9);
  });
});

Deno.test("over KV Connect without a sequence, ten hooks are stored (write) and handed on (onPostback); eleven are 413", async () => {
  await withRemote(async (kv) => {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    await saveHooks(hooks, 11);
    const at = Date.now();
    const stored = await writer(hooks).handle(post({ authorization: await signA(at) }, bodyOf(10)));
    assert.deepEqual([stored.status, await stored.json()], [200, { received: 10 }]);
    assert.equal(await inboxSize(kv), 10);
    let handed = 0;
    const onPostback = createReceiver(hooks, { onPostback: () => void handed++ });
    const res = await onPostback.handle(post({ authorization: await signA(at + 1) }, bodyOf(10)));
    assert.deepEqual([res.status, await res.json(), handed], [200, { received: 10 }, 10]);
    const eleven = await onPostback.handle(post({ authorization: await signA(at + 2) }, bodyOf(11)));
    assert.equal(eleven.status, 413);
    assert.match((await eleven.json()).error, /at most 10 webhooks/);
  });
});

Deno.test("over KV Connect with a sequence, every hook count that is taken is stored, cache cold and warm, current and previous secret", async () => {
  await withRemote(async (kv) => {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    await saveHooks(hooks, 9);
    const receiver = writer(hooks, { sequence: ["seq"] });
    let at = Date.now();
    let expected = 0;
    const round = async (secret: string, label: string) => {
      for (let count = 1; count <= 9; count++) {
        // Twice per count: the first reads (or rests on the cache of the count before), the second rests on the cache.
        for (let copy = 0; copy < 2; copy++) {
          const res = await receiver.handle(
            post({ authorization: await signA(++at, undefined, secret) }, bodyOf(count)),
          );
          const body = await res.json();
          assert.equal(res.status, 200, `${label}, ${count} hooks, copy ${copy}: ${JSON.stringify(body)}`);
          expected += count;
        }
      }
    };
    await round(SECRET_A, "current secret");
    // Rotated: the old secret still verifies, and the commit checks the rotation entry too.
    const community = (await hooks.communities.findByTenantID("tenant-a"))!;
    await hooks.communities.save({ ...community, clientSecret: btoa("community A's next secret, 32 b") });
    await round(SECRET_A, "previous secret");
    assert.equal((await kv.get(["seq"])).value, expected);
    assert.equal(await inboxSize(kv), expected);
  });
});

Deno.test("over KV Connect with a sequence, ten-, nine- and one-hook postbacks at once: 413, 200, 200, each numbered once", async () => {
  await withRemote(async (kv) => {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    await saveHooks(hooks, 10);
    const receiver = writer(hooks, { sequence: ["seq"] });
    const at = Date.now();
    // Groups of them exceed ten checks: the first is refused by KV Connect and split, and each taken one fits alone.
    const counts = Array.from({ length: 45 }, (_, i) => [10, 9, 1][i % 3]);
    const answers = await Promise.all(counts.map(async (count, i) => {
      const res = await receiver.handle(post({ authorization: await signA(at + i) }, bodyOf(count)));
      return `${count}: ${res.status}`;
    }));
    assert.deepEqual(answers, counts.map((count) => `${count}: ${count === 10 ? 413 : 200}`));
    const total = counts.filter((count) => count < 10).reduce((a, b) => a + b, 0);
    assert.equal((await kv.get(["seq"])).value, total);
    assert.equal(await inboxSize(kv), total);
  });
});
