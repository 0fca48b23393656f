// createReceiver()'s cache of communities and records: whatever changes in
// KV after a postback was accepted (a secret rotated, a client id changed, a
// hook or community removed, tokens renewed, a hook saved elsewhere) is
// honoured by the very next postback, even when another store or process made
// the change; and what it hands on is a copy the next postback does not see.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { item, NOW, post, REF_A, SECRET_A, SIGN_A, signA, withReceiver } from "../_receiver.ts";

const ROTATED = btoa("community A's rotated secret, 32b");

/** A postback of community A at `offset` ms after NOW, signed with `secret`. */
async function postA(offset: number, secret = SECRET_A, params = SIGN_A, ref = REF_A): Promise<Request> {
  return post({ authorization: await signA(NOW + offset, params, secret) }, JSON.stringify([item(ref)]));
}

Deno.test("a rotated secret takes effect at once; the old one is accepted only until the rotation's validUntil", async () => {
  await withReceiver(async ({ kv, receiver, delivered, clock }) => {
    assert.equal((await receiver.handle(await postA(1))).status, 200);
    // Another store over the same KV, as another process would be.
    const other = createWebhooks(kv);
    const community = (await other.communities.findByTenantID("tenant-a"))!;
    await other.communities.save({ ...community, clientSecret: ROTATED });
    const fresh = await receiver.handle(await postA(3, ROTATED));
    assert.deepEqual(await fresh.json(), { received: 1 });
    assert.equal(delivered[1].community.clientSecret, ROTATED);
    // Signed with the old secret just before the change (secret_rotation_test.ts has the rest).
    assert.equal((await receiver.handle(await postA(2))).status, 200);
    clock.now = Date.parse((await other.communities.secretRotation("tenant-a"))!.validUntil) + 1;
    assert.equal((await receiver.handle(await postA(clock.now - NOW - 1_000))).status, 401);
    assert.equal((await receiver.handle(await postA(clock.now - NOW - 1_000, ROTATED))).status, 200);
    assert.equal(delivered.length, 4);
  });
});

Deno.test("a changed client id, a removed community and a removed hook are refused at once", async () => {
  await withReceiver(async ({ kv, receiver, delivered }) => {
    const other = createWebhooks(kv);
    assert.equal((await receiver.handle(await postA(1))).status, 200);
    const community = (await other.communities.findByTenantID("tenant-a"))!;
    await other.communities.save({ ...community, clientId: "client-a2" });
    assert.equal((await receiver.handle(await postA(2))).status, 401);
    const renamed = await receiver.handle(await postA(3, SECRET_A, { ...SIGN_A, clientId: "client-a2" }));
    assert.equal(renamed.status, 200);

    assert.ok(await other.remove("hook-a"));
    const gone = await receiver.handle(await postA(4, SECRET_A, { ...SIGN_A, clientId: "client-a2" }));
    assert.equal(gone.status, 404);

    await other.save({ id: "hook-a", tenantId: "tenant-a", entity: { resources: { self: { ref: REF_A } } } });
    assert.equal((await receiver.handle(await postA(5, SECRET_A, { ...SIGN_A, clientId: "client-a2" }))).status, 200);
    await other.communities.remove("tenant-a");
    assert.equal((await receiver.handle(await postA(6, SECRET_A, { ...SIGN_A, clientId: "client-a2" }))).status, 401);
    assert.equal(delivered.length, 3);
  });
});

Deno.test("a hook saved elsewhere or tokens renewed: the next postback carries what is stored now", async () => {
  await withReceiver(async ({ kv, receiver, delivered }) => {
    const other = createWebhooks(kv);
    assert.equal((await receiver.handle(await postA(1))).status, 200);
    await other.save({
      id: "hook-a",
      tenantId: "tenant-a",
      entity: { resources: { self: { ref: REF_A } }, events: ["jive:liked"] },
    });
    await other.communities.storeTokens("tenant-a", { access_token: "a2", refresh_token: "r2" });
    assert.equal((await receiver.handle(await postA(2))).status, 200);
    assert.deepEqual(delivered[1].webhook.entity.events, ["jive:liked"]);
    assert.equal(delivered[1].community.oauth?.access_token, "a2");
    // Moved to another tenant: no longer a hook of community A.
    await other.save({ id: "hook-a", tenantId: "tenant-b", entity: { resources: { self: { ref: REF_A } } } });
    assert.equal((await receiver.handle(await postA(3))).status, 404);
    assert.equal(delivered.length, 2);
  });
});

Deno.test("what onPostback is handed is its own copy: changing it changes nothing for the next postback", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    assert.equal((await receiver.handle(await postA(1))).status, 200);
    delivered[0].community.clientId = "mutated";
    delivered[0].webhook.tenantId = "mutated";
    assert.equal((await receiver.handle(await postA(2))).status, 200);
    assert.equal(delivered[1].community.clientId, "client-a");
    assert.equal(delivered[1].webhook.tenantId, "tenant-a");
  });
});

Deno.test("a replay is still a duplicate while the cache is warm, and after the hook changed", async () => {
  await withReceiver(async ({ kv, receiver, delivered }) => {
    const header = await signA(NOW + 1);
    const body = JSON.stringify([item()]);
    assert.deepEqual(await (await receiver.handle(post({ authorization: header }, body))).json(), { received: 1 });
    assert.deepEqual(await (await receiver.handle(post({ authorization: header }, body))).json(), {
      received: 0,
      duplicate: true,
    });
    await createWebhooks(kv).save({
      id: "hook-a",
      tenantId: "tenant-a",
      entity: { resources: { self: { ref: REF_A } } },
    });
    assert.deepEqual(await (await receiver.handle(post({ authorization: header }, body))).json(), {
      received: 0,
      duplicate: true,
    });
    assert.equal(delivered.length, 1);
  });
});

Deno.test("a lapsed claim whose takeover meets a hook changed in between is decided afresh, not called a duplicate", async () => {
  let hang = false;
  let calls = 0;
  await withReceiver(async ({ kv, receiver, clock }) => {
    assert.equal((await receiver.handle(await postA(1))).status, 200); // cache warm
    const header = await signA(NOW + 2);
    hang = true;
    // The first taker of this header dies in onPostback: its claim stays pending past its lease.
    void receiver.handle(post({ authorization: header }, JSON.stringify([item()])));
    await new Promise((resolve) => setTimeout(resolve, 20));
    hang = false;
    clock.now += 2_000;
    // Between the read of the lapsed claim and the takeover's commit, another process saves the hook.
    const other = createWebhooks(kv);
    const getMany = kv.getMany.bind(kv);
    let raced = false;
    Object.assign(kv, {
      getMany: async (...args: Parameters<Deno.Kv["getMany"]>) => {
        const read = await getMany(...args);
        if (!raced && args[0].length > 1) {
          raced = true;
          await other.save((await other.findByWebhookURL(REF_A))[0]);
        }
        return read;
      },
    });
    const retry = await receiver.handle(post({ authorization: header }, JSON.stringify([item()])));
    assert.ok(raced, "the takeover met the change");
    assert.deepEqual(await retry.json(), { received: 1 });
    assert.equal(calls, 3, "the warm-up, the taker that died, the retry");
  }, {
    claimLeaseMs: 1_000,
    onPostback: () => {
      calls++;
      return hang ? new Promise<void>(() => {}) : undefined;
    },
  });
});
