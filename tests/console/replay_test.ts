// "Replay to receiver": a stored delivery runs through the receiver's
// handler again, signed with the community's secret, as a new attempt marked
// as a replay; only accepted, whole deliveries can be replayed (issue 16).

import assert from "node:assert/strict";
import { replayFields, trigger, withHook } from "./_helpers.ts";

Deno.test("a delivery replayed to the receiver comes back as a new delivery marked as a replay", async () => {
  await withHook(async (t, { id, platformId }, client) => {
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    const [original] = (await t.app.deliveries.page({ status: "accepted", hookId: id })).values;
    const { _csrf: csrf, formToken } = await replayFields(client, original.id);
    const res = await client.post(`/deliveries/${original.id}/replay`, { _csrf: csrf, formToken });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), `/deliveries?hook=${id}&notice=replayed`);
    const [again, first] = (await t.app.deliveries.page({ status: "accepted", hookId: id })).values;
    assert.equal(first.id, original.id);
    assert.notEqual(again.id, original.id);
    assert.equal(again.replay, true);
    assert.equal((await t.app.deliveries.get(again.id))?.payload, (await t.app.deliveries.get(original.id))?.payload);
    assert.match(await client.text(`/deliveries?hook=${id}`, 200), /accepted \(replay\)/);

    // A rejected attempt cannot be replayed.
    const forged = await fetch(`${t.origin}/hooks/${id}`, { method: "POST", headers: { authorization: "JiveEXTN x" } });
    await forged.body?.cancel();
    const [rejected] = (await t.app.deliveries.page({ status: "rejected" })).values;
    const refused = await client.post(`/deliveries/${rejected.id}/replay`, { _csrf: csrf });
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /Only an accepted delivery can be replayed/);
  });
});

Deno.test("a replay to a receiver id too long for a KV key is refused, and the console keeps serving", async () => {
  await withHook(async (t, { id, platformId }, client) => {
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    const [original] = (await t.app.deliveries.page({ status: "accepted", hookId: id })).values;
    const hook = (await t.app.webhooks.findByID(id))!;
    await t.app.webhooks.save({
      ...hook,
      entity: { ...hook.entity, callback: `${t.origin}/hooks/${"x".repeat(2_100)}` },
    });
    const refused = await client.post(`/deliveries/${original.id}/replay`, await replayFields(client, original.id));
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /The receiver answered 404/);
    // Nothing was left to fail unseen: the console still answers.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.match(await client.text(`/deliveries?hook=${id}`, 200), /accepted/);
  });
});
