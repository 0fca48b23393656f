// The deliveries page right after a Redeliver: its summary counts both postbacks accepted, and its handling time is
// over both. The redelivered postback's request details wait a moment in memory for their batch to be written, and the
// summary read them from KV alone, so the page said "2 accepted" beside "(of 1 postback)", or gave no handling time.

import assert from "node:assert/strict";
import { parse, redeliverFields, trigger, withHook } from "./_helpers.ts";

Deno.test("right after a Redeliver, the summary's handling time is over every accepted postback", async () => {
  await withHook(async (t, { id, platformId }, client) => {
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    const [original] = (await t.app.deliveries.page({ status: "accepted", hookId: id })).values;
    const res = await client.post(`/deliveries/${original.id}/redeliver`, await redeliverFields(client, original.id));
    await res.body?.cancel();
    const location = res.headers.get("location")!;
    assert.equal(location, `/deliveries?hook=${id}&notice=redelivered`);

    const page = parse(await client.text(location, 200));
    try {
      const health = page.document.querySelector("#delivery-health")?.textContent ?? "";
      assert.match(health, /Success rate: 100% accepted\./, health);
      assert.match(health, /Our handling time: p50 [\d.]+ ms, p99 [\d.]+ ms \(of 2 postbacks\)\./, health);
    } finally {
      page.close();
    }
    const stats = await (await client.fetch(`/deliveries/stats.json?hook=${id}`)).json();
    assert.equal(stats.accepted, 2);
    assert.equal(stats.handling?.count, 2, JSON.stringify(stats.handling));
  });
});
