// A secret rotation is a check-and-set: two saves (or updates) that read the
// same community and both replace its client secret cannot both succeed. The
// one whose commit comes second finds the secret changed since it read it
// and is refused with a ConflictError ("the secret changed meanwhile"),
// storing nothing; the winner's secret is current and the one both replaced
// is the previous one. Saves are made to read before either commits by a KV
// whose reads wait for each other (a barrier), so the race is not left to
// timing.

import assert from "node:assert/strict";
import { type Community, ConflictError, createWebhooks } from "../../../webhooks/mod.ts";

const acme: Community = {
  name: "Acme",
  tenantId: "t-acme",
  baseUrl: "https://acme.example",
  clientId: "cid",
  clientSecret: btoa("the original secret"),
};
const PREVIOUS_KEY = ["community_secret_previous", acme.tenantId];

/**
 * The KV seen through a barrier: after `arm(n)`, the first `n` reads
 * (`get`/`getMany`) each wait until all `n` have been answered.
 */
function barrierKv(kv: Deno.Kv): { kv: Deno.Kv; arm(n: number): void } {
  let waiting: { count: number; all: PromiseWithResolvers<void> } | null = null;
  const held = <T>(read: Promise<T>) =>
    read.then(async (value) => {
      const barrier = waiting;
      if (barrier === null) return value;
      if (--barrier.count === 0) {
        waiting = null;
        barrier.all.resolve();
      }
      await barrier.all.promise;
      return value;
    });
  const proxy = new Proxy(kv, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (name === "get" || name === "getMany") {
        return (...args: unknown[]) => held((value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv: proxy, arm: (n) => waiting = { count: n, all: Promise.withResolvers() } };
}

async function withRace(
  fn: (hooks: ReturnType<typeof createWebhooks>, arm: (n: number) => void, kv: Deno.Kv) => Promise<void>,
) {
  const kv = await Deno.openKv(":memory:");
  try {
    const barrier = barrierKv(kv);
    await fn(createWebhooks(barrier.kv), barrier.arm, kv);
  } finally {
    kv.close();
  }
}

/** One fulfilled, one rejected with the conflict: the index of the winner. */
function winnerOf(results: PromiseSettledResult<unknown>[], secrets: string[]): number {
  assert.deepEqual(results.map((r) => r.status).sort(), ["fulfilled", "rejected"], JSON.stringify(results));
  const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
  assert.ok(lost.reason instanceof ConflictError, String(lost.reason));
  assert.match(lost.reason.message, /the secret changed meanwhile/);
  for (const secret of [acme.clientSecret!, ...secrets]) {
    assert.ok(!lost.reason.message.includes(secret), "no secret shown");
  }
  return results.findIndex((r) => r.status === "fulfilled");
}

Deno.test("communities.save(): of two rotations at once, one is refused (the secret changed meanwhile); the winner's secret is current, the original previous", async () => {
  await withRace(async ({ communities }, arm, kv) => {
    await communities.save(acme);
    const secrets = [btoa("new secret one"), btoa("new secret two")];
    arm(2);
    const results = await Promise.allSettled(
      secrets.map((clientSecret) => communities.save({ ...acme, clientSecret })),
    );
    const winner = winnerOf(results, secrets);
    assert.equal((await communities.findByTenantID(acme.tenantId))?.clientSecret, secrets[winner]);
    const previous = await kv.get<{ secret: string }>(PREVIOUS_KEY);
    assert.equal(previous.value?.secret, acme.clientSecret, "the previous secret is the original one");
  });
});

Deno.test("communities.update(): of two rotations at once, one is refused too, storing nothing of it", async () => {
  await withRace(async ({ communities }, arm, kv) => {
    await communities.save(acme);
    const changes = [{ name: "Acme one", clientSecret: btoa("new secret one") }, {
      name: "Acme two",
      clientSecret: btoa("new secret two"),
    }];
    arm(2);
    const results = await Promise.allSettled(
      changes.map((change) => communities.update(acme.tenantId, (current) => ({ ...current, ...change }))),
    );
    const winner = winnerOf(results, changes.map((change) => change.clientSecret));
    const stored = await communities.findByTenantID(acme.tenantId);
    assert.deepEqual([stored?.name, stored?.clientSecret], [changes[winner].name, changes[winner].clientSecret]);
    assert.equal((await kv.get<{ secret: string }>(PREVIOUS_KEY)).value?.secret, acme.clientSecret);
  });
});

Deno.test("communities.save(): a save that keeps the secret, at once with a rotation, is stored after it and keeps the rotated secret", async () => {
  await withRace(async ({ communities }, arm) => {
    await communities.save(acme);
    const next = btoa("new secret");
    arm(2);
    const [rename, rotation] = await Promise.allSettled([
      communities.update(acme.tenantId, (current) => ({ ...current, name: "Acme renamed" })),
      communities.save({ ...acme, clientSecret: next }),
    ]);
    assert.deepEqual([rename.status, rotation.status], ["fulfilled", "fulfilled"]);
    const stored = await communities.findByTenantID(acme.tenantId);
    assert.equal(stored?.clientSecret, next);
  });
});

Deno.test("communities.save(): two saves at once that set the same new secret both succeed (nothing is lost)", async () => {
  await withRace(async ({ communities }, arm, kv) => {
    await communities.save(acme);
    const next = btoa("new secret");
    arm(2);
    const results = await Promise.allSettled([0, 1].map(() => communities.save({ ...acme, clientSecret: next })));
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "fulfilled"]);
    assert.equal((await communities.findByTenantID(acme.tenantId))?.clientSecret, next);
    assert.equal((await kv.get<{ secret: string }>(PREVIOUS_KEY)).value?.secret, acme.clientSecret);
  });
});
