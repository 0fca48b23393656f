// Redeliver and Replay pressed on a delivery page shown before its hook was unregistered (another tab, another
// operator): each is refused with the page's error saying the hook is gone, and nothing is sent again.

import assert from "node:assert/strict";
import { pageError, redeliverFields, replayFields, trigger, withHook } from "./_helpers.ts";

Deno.test("Redeliver and Replay of a delivery whose hook was unregistered meanwhile are refused, sending nothing", async () => {
  await withHook(async (t, { id, platformId }, client) => {
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    const [delivery] = (await t.app.deliveries.page({ hookId: id })).values;
    const redeliver = await redeliverFields(client, delivery.id);
    const replay = await replayFields(client, delivery.id);
    await t.app.webhooks.unregister((await t.app.webhooks.findByID(id))!);
    const count = async () => (await t.app.deliveries.page({})).values.length;
    const before = await count();

    const refused = await client.post(`/deliveries/${delivery.id}/redeliver`, redeliver);
    assert.equal(refused.status, 404);
    assert.equal(
      pageError(await refused.text()),
      "The hook of this delivery is no longer registered: there is nothing to redeliver to",
    );
    const unsigned = await client.post(`/deliveries/${delivery.id}/replay`, replay);
    assert.equal(unsigned.status, 400);
    assert.equal(
      pageError(await unsigned.text()),
      "The hook or its community's client secret is gone: the replay could not be signed",
    );
    assert.equal(await count(), before);
  });
});
