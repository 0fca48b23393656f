// Zero-downtime rotation of a community's client secret: after
// `communities.save` replaces it, a postback signed with the previous secret
// just before the change is still accepted (with onPostback and with write)
// until the rotation's `validUntil` by the receiver's clock, never a secret
// that was not the community's; the rotation entry is written in the save's
// own atomic operation, removed with the community, and never holds more than
// the last replaced secret. The lookups return the record as saved.

import assert from "node:assert/strict";
import { limitedKv } from "../_limited_kv.ts";
import { type Community, createReceiver, createWebhooks, type Postback, type Webhooks } from "../../../webhooks/mod.ts";
import { item, NOW, post, REF_A, SECRET_A, seed, SIGN_A, signA, withReceiver } from "../_receiver.ts";

const NEW_SECRET = btoa("community A's new client secret!");
const THIRD_SECRET = btoa("community A's third client secret");
const NEVER_SECRET = btoa("a secret community A never had..");

/** The rotation entry's key, as docs/webhooks.md names it. */
function communitySecretPreviousKey(tenantId: string): Deno.KvKey {
  return ["community_secret_previous", tenantId];
}

/** A postback of community A signed at `timestamp` with `secret`. */
async function postA(timestamp: number, secret: string, ref = REF_A): Promise<Request> {
  return post({ authorization: await signA(timestamp, SIGN_A, secret) }, JSON.stringify([item(ref)]));
}

/** Replaces community A's client secret through `save`. */
async function rotate(hooks: Webhooks, clientSecret: string): Promise<Community> {
  const community = { ...(await hooks.communities.findByTenantID("tenant-a"))!, clientSecret };
  await hooks.communities.save(community);
  return community;
}

/** The rotation's `validUntil` in ms. */
async function validUntil(hooks: Webhooks): Promise<number> {
  const rotation = await hooks.communities.secretRotation("tenant-a");
  assert.ok(rotation, "no rotation recorded");
  return Date.parse(rotation.validUntil);
}

Deno.test("onPostback: a postback signed with the old secret just before the change is accepted after save", async () => {
  await withReceiver(async ({ hooks, receiver, delivered }) => {
    const signedBefore = await postA(NOW, SECRET_A);
    await rotate(hooks, NEW_SECRET);
    const old = await receiver.handle(signedBefore);
    assert.deepEqual(await old.json(), { received: 1 });
    const fresh = await receiver.handle(await postA(NOW + 1, NEW_SECRET));
    assert.deepEqual(await fresh.json(), { received: 1 });
    // What is handed on is the community as stored now, whichever secret verified.
    assert.deepEqual(delivered.map((p) => p.community.clientSecret), [NEW_SECRET, NEW_SECRET]);
  });
});

Deno.test("write: a postback signed with the old secret just before the change is stored after save", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    const receiver = createReceiver(hooks, {
      write: (postback: Postback, atomic) => {
        atomic.set(["inbox", postback.postbackId, postback.index], postback.activity.verb as string);
      },
      sequence: ["seq"],
      now: () => NOW,
    });
    // A warm cache: the receiver has verified community A with its old secret.
    assert.equal((await receiver.handle(await postA(NOW - 10, SECRET_A))).status, 200);
    const signedBefore = await postA(NOW - 5, SECRET_A);
    await rotate(hooks, NEW_SECRET);
    assert.deepEqual(await (await receiver.handle(signedBefore)).json(), { received: 1 });
    assert.deepEqual(await (await receiver.handle(await postA(NOW - 4, SECRET_A))).json(), { received: 1 });
    assert.deepEqual(await (await receiver.handle(await postA(NOW - 3, NEW_SECRET))).json(), { received: 1 });
    const stored = await Array.fromAsync(kv.list({ prefix: ["inbox"] }));
    assert.equal(stored.length, 4);
  } finally {
    kv.close();
  }
});

Deno.test("the old secret is refused once the rotation's validUntil has passed by the receiver's clock", async () => {
  await withReceiver(async ({ hooks, receiver, clock, attempts }) => {
    await rotate(hooks, NEW_SECRET);
    const until = await validUntil(hooks);
    clock.now = until;
    assert.equal((await receiver.handle(await postA(until - 1_000, SECRET_A))).status, 200);
    clock.now = until + 1;
    const late = await receiver.handle(await postA(until - 999, SECRET_A));
    assert.equal(late.status, 401);
    assert.deepEqual(await late.json(), { error: "Unauthorized: JiveEXTN signature does not match" });
    assert.match(attempts.at(-1)!.reason, /previous client secret, accepted until /);
    // Within its window, so refused for the secret alone: the new one verifies the same moment.
    assert.equal((await receiver.handle(await postA(until - 999, NEW_SECRET))).status, 200);
    // No report holds a secret.
    const reports = JSON.stringify(attempts);
    for (const secret of [SECRET_A, NEW_SECRET]) assert.equal(reports.includes(secret), false);
  });
});

Deno.test("a secret that was never the community's is refused after a rotation, and so is the previous client id's mismatch", async () => {
  await withReceiver(async ({ hooks, receiver, delivered }) => {
    await rotate(hooks, NEW_SECRET);
    assert.equal((await receiver.handle(await postA(NOW, NEVER_SECRET))).status, 401);
    const otherClient = await signA(NOW + 1, { ...SIGN_A, clientId: "client-x" }, SECRET_A);
    assert.equal((await receiver.handle(post({ authorization: otherClient }, JSON.stringify([item()])))).status, 401);
    assert.equal(delivered.length, 0);
  });
});

Deno.test("only the last replaced secret is kept: after a second rotation the first secret is refused", async () => {
  await withReceiver(async ({ hooks, receiver }) => {
    await rotate(hooks, NEW_SECRET);
    // The receiver caches community A with SECRET_A as its previous secret.
    assert.equal((await receiver.handle(await postA(NOW, SECRET_A))).status, 200);
    await rotate(hooks, THIRD_SECRET);
    assert.equal((await receiver.handle(await postA(NOW + 1, SECRET_A))).status, 401);
    assert.equal((await receiver.handle(await postA(NOW + 2, NEW_SECRET))).status, 200);
    assert.equal((await receiver.handle(await postA(NOW + 3, THIRD_SECRET))).status, 200);
  });
});

Deno.test("a warm cache honours a rotation entry gone from KV: the claim's commit checks it", async () => {
  await withReceiver(async ({ kv, hooks, receiver }) => {
    await rotate(hooks, NEW_SECRET);
    assert.equal((await receiver.handle(await postA(NOW, SECRET_A))).status, 200);
    // As KV expires it: the entry goes, the community record stays as it was.
    await kv.delete(communitySecretPreviousKey("tenant-a"));
    assert.equal((await receiver.handle(await postA(NOW + 1, SECRET_A))).status, 401);
    assert.equal((await receiver.handle(await postA(NOW + 2, NEW_SECRET))).status, 200);
  });
});

Deno.test("revokePreviousSecret ends the overlap at once, for a receiver whose cache verified with the old secret too", async () => {
  await withReceiver(async ({ hooks, receiver }) => {
    await rotate(hooks, NEW_SECRET);
    assert.equal((await receiver.handle(await postA(NOW, SECRET_A))).status, 200); // within the overlap, cached
    assert.equal(await hooks.communities.revokePreviousSecret("tenant-a"), true);
    assert.equal(await hooks.communities.secretRotation("tenant-a"), null);
    const refused = await receiver.handle(await postA(NOW + 1, SECRET_A));
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    assert.equal((await receiver.handle(await postA(NOW + 2, NEW_SECRET))).status, 200);
    // Nothing left to revoke; the community is as saved; a bad tenant id is named.
    assert.equal(await hooks.communities.revokePreviousSecret("tenant-a"), false);
    assert.equal((await hooks.communities.findByTenantID("tenant-a"))?.clientSecret, NEW_SECRET);
    await assert.rejects(() => hooks.communities.revokePreviousSecret(""), /'tenantId'/);
  });
});

Deno.test("save writes the rotation entry in the same atomic operation as the record; lookups return the record as saved", async () => {
  const raw = await Deno.openKv(":memory:");
  const commits: string[][] = [];
  // A KV that notes the keys each committed atomic operation sets.
  const recording = new Proxy(raw, {
    get(target, prop) {
      if (prop !== "atomic") {
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        const op = target.atomic();
        const keys: string[] = [];
        const set = op.set.bind(op);
        op.set = (key, value, options) => {
          keys.push(JSON.stringify(key));
          return set(key, value, options);
        };
        const commit = op.commit.bind(op);
        op.commit = async () => {
          const result = await commit();
          if (result.ok) commits.push(keys);
          return result;
        };
        return op;
      };
    },
  });
  try {
    const { communities } = createWebhooks(recording);
    const acme: Community = { name: "Acme", tenantId: "t1", baseUrl: "https://c.example", clientSecret: SECRET_A };
    await communities.save(acme);
    assert.equal(await communities.secretRotation("t1"), null);
    const rotated = { ...acme, clientId: "c2", clientSecret: NEW_SECRET };
    const before = Date.now();
    await communities.save(rotated);
    const entry = JSON.stringify(communitySecretPreviousKey("t1"));
    assert.deepEqual(
      commits.at(-1)!.sort(),
      [JSON.stringify(["community", "t1"]), JSON.stringify(["community_by_name", "Acme"]), entry].sort(),
    );
    assert.deepEqual(await communities.findByTenantID("t1"), rotated);
    assert.deepEqual(await communities.findByName("Acme"), rotated);
    assert.deepEqual((await communities.list()).values, [rotated]);
    const rotation = (await communities.secretRotation("t1"))!;
    assert.deepEqual(Object.keys(rotation).sort(), ["rotatedAt", "validUntil"]);
    assert.ok(Date.parse(rotation.rotatedAt) >= before && Date.parse(rotation.rotatedAt) <= Date.now());
    // 5 minutes back + 30 s ahead + a minute for clocks.
    assert.equal(Date.parse(rotation.validUntil) - Date.parse(rotation.rotatedAt), 390_000);
    // The same secret again, a rename: no new rotation.
    await communities.save({ ...rotated, name: "Acme 2" });
    assert.equal(commits.at(-1)!.includes(entry), false);
    assert.deepEqual(await communities.secretRotation("t1"), rotation);
    // A save refused for its name writes nothing, the rotation entry included.
    await communities.save({ name: "Other", tenantId: "t2", baseUrl: "https://d.example" });
    const count = commits.length;
    await assert.rejects(() => communities.save({ ...rotated, name: "Other", clientSecret: THIRD_SECRET }));
    assert.equal(commits.length, count);
    assert.deepEqual(await communities.secretRotation("t1"), rotation);
  } finally {
    raw.close();
  }
});

Deno.test("removing a community removes its rotation entry: added again, its old secret verifies nothing", async () => {
  await withReceiver(async ({ kv, hooks, receiver }) => {
    const community = await rotate(hooks, NEW_SECRET);
    assert.ok(await hooks.communities.remove("tenant-a"));
    assert.equal((await kv.get(communitySecretPreviousKey("tenant-a"))).versionstamp, null);
    assert.equal(await hooks.communities.secretRotation("tenant-a"), null);
    await hooks.communities.save(community);
    assert.equal(await hooks.communities.secretRotation("tenant-a"), null);
    assert.equal((await receiver.handle(await postA(NOW, SECRET_A))).status, 401);
    assert.equal((await receiver.handle(await postA(NOW + 1, NEW_SECRET))).status, 200);
  });
});

Deno.test("removing the client secret rotates too: the removed one verifies until validUntil", async () => {
  await withReceiver(async ({ hooks, receiver, clock }) => {
    const { clientSecret: _, ...withoutSecret } = (await hooks.communities.findByTenantID("tenant-a"))!;
    await hooks.communities.save(withoutSecret);
    assert.equal((await receiver.handle(await postA(NOW, SECRET_A))).status, 200);
    clock.now = (await validUntil(hooks)) + 1;
    assert.equal((await receiver.handle(await postA(clock.now - 1_000, SECRET_A))).status, 401);
  });
});

Deno.test("with the previous secret, a postback naming four hooks still commits within ten checks (KV Connect)", async () => {
  const raw = await Deno.openKv(":memory:");
  const { kv: limited, seen } = limitedKv(raw);
  try {
    const hooks = createWebhooks(limited);
    await seed(hooks);
    const refs = [1, 21, 22, 23].map((n) => `https://a.example/api/core/v3/webhooks/${n}`);
    for (const [i, ref] of refs.slice(1).entries()) {
      await hooks.save({ id: `hook-a${i}`, tenantId: "tenant-a", entity: { resources: { self: { ref } } } });
    }
    await rotate(hooks, NEW_SECRET);
    const body = JSON.stringify(refs.map((ref) => item(ref)));
    for (const mode of ["write", "onPostback"] as const) {
      const receiver = createReceiver(hooks, {
        ...(mode === "write"
          ? {
            write: (p: Postback, atomic: Deno.AtomicOperation) => void atomic.set(["inbox", p.postbackId, p.index], 1),
          }
          : { onPostback: () => {} }),
        ...(mode === "write" ? { sequence: ["seq"] } : {}),
        now: () => NOW,
      });
      for (let i = 0; i < 3; i++) {
        const authorization = await signA(NOW - 10 * i - (mode === "write" ? 0 : 5), SIGN_A, SECRET_A);
        const res = await receiver.handle(post({ authorization }, body));
        assert.deepEqual([mode, res.status, await res.json()], [mode, 200, { received: 4 }]);
      }
    }
    assert.ok(seen.largest <= 10, `a commit carried ${seen.largest} checks`);
    // The group commit's question whether the KV is remote, once: no commit of the postbacks was refused.
    assert.ok(seen.refused <= 1, `refused ${seen.refused} commits`);
  } finally {
    raw.close();
  }
});
