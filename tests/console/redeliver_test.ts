// Redeliver (issue 44), as GitHub's: any delivery of a sandbox hook, a
// platform-side failure included, is sent again by the platform to the
// hook's callback, the same body under a fresh signature; the sandbox keeps
// what it sent for that (`POST /sandbox/redeliver`, `Sandbox.redeliver`).

import assert from "node:assert/strict";
import { verifyJiveExtn } from "../../webhooks/mod.ts";
import { csrfOf, parse, redeliverFields, replayFields, trigger, withHook, withSignedInHook } from "./_helpers.ts";

Deno.test("a platform-side failure is redelivered through the platform, signed anew, once the callback is back", async () => {
  const seen: { authorization: string; body: string }[] = [];
  let answer = 503;
  const callback = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (request) => {
    seen.push({ authorization: request.headers.get("authorization") ?? "", body: await request.text() });
    return new Response(answer === 200 ? "ok" : "busy", { status: answer });
  });
  try {
    const hook = { callback: `http://127.0.0.1:${callback.addr.port}/in` };
    await withSignedInHook({ hook }, async ({ t, client, hookId: id, platformId }) => {
      assert.deepEqual(await trigger(t.origin, { webhookId: await platformId() }), [503]);
      const [failure] = (await t.app.deliveries.page({ hookId: id })).values;
      assert.match(failure.reason ?? "", /^Platform-side failure: the callback answered 503$/);

      // Still failing: the platform sent it again, and says so.
      const page = await client.text(`/deliveries/${failure.id}`, 200);
      assert.doesNotMatch(page, /signature=/, "the logged header keeps no signature");
      const again = await client.post(`/deliveries/${failure.id}/redeliver`, await redeliverFields(client, failure.id));
      await again.body?.cancel();
      assert.equal(again.status, 303);
      assert.equal(again.headers.get("location"), `/deliveries?hook=${id}&notice=redelivery-failed`);
      assert.equal((await t.app.deliveries.page({ hookId: id })).values.length, 2, "the second failure is logged too");

      // Back up: the same postback arrives, under a signature of its own that verifies.
      answer = 200;
      const done = await client.post(`/deliveries/${failure.id}/redeliver`, await redeliverFields(client, failure.id));
      await done.body?.cancel();
      assert.equal(done.headers.get("location"), `/deliveries?hook=${id}&notice=redelivered`);
      assert.equal(seen.length, 3);
      assert.equal(seen[2].body, seen[0].body, "the same body");
      assert.notEqual(seen[2].authorization, seen[0].authorization, "signed anew");
      const community = await t.app.webhooks.communities.findByTenantID("sandbox-tenant");
      assert.equal((await verifyJiveExtn(seen[2].authorization, community!.clientSecret!)).ok, true);
      const notice = parse(await client.text(`/deliveries?hook=${id}&notice=redelivered`, 200));
      try {
        assert.match(notice.document.querySelector(".notice")?.textContent ?? "", /The platform delivered it again/);
      } finally {
        notice.close();
      }

      // A disabled hook gets nothing, redeliveries included.
      const toggle = await client.post(`/webhooks/${id}/enabled`, { _csrf: csrfOf(page), enabled: "0" });
      await toggle.body?.cancel();
      const refused = await client.post(
        `/deliveries/${failure.id}/redeliver`,
        await redeliverFields(client, failure.id),
      );
      assert.equal(refused.status, 409);
      assert.match(await refused.text(), /is disabled: the platform posts nothing to it/);
      assert.equal(seen.length, 3);
    });
  } finally {
    await callback.shutdown();
  }
});

Deno.test("a delivery our receiver accepted is redelivered as a new delivery; a replay offers no Redeliver", async () => {
  await withHook(async (t, { id, platformId }, client) => {
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    const [original] = (await t.app.deliveries.page({ status: "accepted", hookId: id })).values;
    const page = await client.text(`/deliveries/${original.id}`, 200);
    assert.match(page, /id="redeliver"/);
    const res = await client.post(`/deliveries/${original.id}/redeliver`, await redeliverFields(client, original.id));
    await res.body?.cancel();
    assert.equal(res.headers.get("location"), `/deliveries?hook=${id}&notice=redelivered`);
    const [again] = (await t.app.deliveries.page({ status: "accepted", hookId: id })).values;
    assert.notEqual(again.id, original.id);
    assert.equal(again.replay, undefined, "sent by the platform, not replayed by the console");
    assert.equal((await t.app.deliveries.get(again.id))?.payload, (await t.app.deliveries.get(original.id))?.payload);

    const replayed = await client.post(`/deliveries/${original.id}/replay`, await replayFields(client, original.id));
    await replayed.body?.cancel();
    const [replay] = (await t.app.deliveries.page({ status: "accepted", hookId: id })).values;
    assert.equal(replay.replay, true);
    assert.doesNotMatch(await client.text(`/deliveries/${replay.id}`, 200), /id="redeliver"/);
    const refused = await client.post(`/deliveries/${replay.id}/redeliver`, { _csrf: csrfOf(page) });
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /Only a postback the sandbox community sent can be redelivered/);
  });
});

Deno.test("a second submission of one Redeliver form (a double click, a POST sent again) lands where the first did and sends nothing", async () => {
  await withHook(async (t, { id, platformId }, client) => {
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    const [original] = (await t.app.deliveries.page({ hookId: id })).values;
    const count = async () => (await t.app.deliveries.page({ hookId: id })).values.length;
    const fields = await redeliverFields(client, original.id);
    assert.notEqual(fields.formToken, "");
    const path = `/deliveries/${original.id}/redeliver`;
    const [a, b] = await Promise.all([client.post(path, fields), client.post(path, fields)]);
    await a.body?.cancel();
    await b.body?.cancel();
    const landed = `/deliveries?hook=${id}&notice=redelivered`;
    assert.deepEqual([a.status, b.status], [303, 303]);
    assert.deepEqual([a.headers.get("location"), b.headers.get("location")], [landed, landed]);
    assert.equal(await count(), 2, "the platform sent it once");
    const replayed = await client.post(path, fields);
    await replayed.body?.cancel();
    assert.equal(replayed.headers.get("location"), landed);
    assert.equal(await count(), 2, "a POST sent again later sends nothing either");

    // A form without its token, or with another delivery's, sends nothing.
    const [again] = (await t.app.deliveries.page({ hookId: id })).values;
    for (const [target, body] of [[original.id, { _csrf: fields._csrf }], [again.id, fields]] as const) {
      const refused = await client.post(`/deliveries/${target}/redeliver`, body);
      assert.equal(refused.status, 400);
      assert.match(
        await refused.text(),
        /Nothing was redelivered: this button has expired or was shown to another session/,
      );
    }
    assert.equal(await count(), 2);
    // A fresh page's button sends it again, deliberately.
    const fresh = await client.post(path, await redeliverFields(client, original.id));
    await fresh.body?.cancel();
    assert.equal(fresh.headers.get("location"), landed);
    assert.equal(await count(), 3);
  });
});

Deno.test("the sandbox's POST /redeliver sends a kept postback again; unknown ones are 404, non-JSON 415", async () => {
  await withHook(async (t, { platformId }) => {
    const sent = await t.app.sandboxApi!.trigger({ webhookId: platformId });
    const timestamp = sent.delivered[0].timestamp!;
    const post = (body: unknown, type = "application/json") =>
      fetch(`${t.origin}/sandbox/redeliver`, {
        method: "POST",
        headers: { "content-type": type },
        body: JSON.stringify(body),
      });
    const ok = await post({ webhookId: platformId, timestamp });
    const body = await ok.json();
    assert.equal(ok.status, 200, JSON.stringify(body));
    assert.equal(body.delivered[0].status, 200);
    assert.ok(body.delivered[0].timestamp > timestamp);
    const unknown = await post({ webhookId: platformId, timestamp: timestamp - 1 });
    assert.equal(unknown.status, 404);
    assert.match((await unknown.json()).error, /No postback to webhook \d+ signed at \d+ is kept/);
    const plain = await post({ webhookId: platformId, timestamp }, "text/plain");
    assert.equal(plain.status, 415);
    await plain.body?.cancel();
    await assert.rejects(t.app.sandboxApi!.redeliver({ webhookId: "999999", timestamp }), RangeError);
  });
});
