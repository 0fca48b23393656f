// A delivery forwarded to a destination removed since: the removal deletes its forwards still waiting and its dead
// letters with their `forwards` state (docs/relay.md), so the delivery's page lists none. It must not then say the
// hook had no destination when the delivery arrived (it had one, and tried it): it says the destination may have been
// removed since.

import assert from "node:assert/strict";
import { createRelay } from "../../webhooks/mod.ts";
import { type Client, csrfOf, parse, trigger, withSignedInHook } from "./_helpers.ts";
import { startApp, until } from "../webhooks/relay/fixtures.ts";

/** The newest delivery id of a hook, from its deliveries list. */
async function newestDelivery(client: Client, hookId: string): Promise<string> {
  const html = await client.text(`/deliveries?hook=${hookId}`, 200);
  return /href="\/deliveries\/(q[^"?]+)"/.exec(html)?.[1] ?? "";
}

Deno.test("a delivery whose destination was removed since is not said to have arrived with no destination", async () => {
  const app = startApp(() => new Response("busy", { status: 500 }));
  try {
    await withSignedInHook({ relayWorker: true }, async ({ t, client, hookId, platformId }) => {
      const forward = `/webhooks/${hookId}/forward`;
      const before = await client.text(forward, 200);
      await (await client.post(forward, { _csrf: csrfOf(before), url: app.url })).body?.cancel();
      assert.deepEqual(await trigger(t.origin, { webhookId: await platformId() }), [200]);
      await app.waitFor(1);
      const id = await newestDelivery(client, hookId);
      let html = "";
      await until(async () => /HTTP 500/.test(html = await client.text(`/deliveries/${id}`, 200)), 5_000, "500");

      const relay = createRelay(t.kv);
      const [destination] = await relay.destinations.list();
      assert.ok(await relay.destinations.remove(destination.id));
      await until(async () => !/HTTP 500/.test(html = await client.text(`/deliveries/${id}`, 200)), 5_000, "gone");
      const page = parse(html);
      try {
        const section = page.document.querySelector("#delivery-forwards")!;
        assert.doesNotMatch(section.textContent!, /had no destination when this arrived\./);
        assert.match(section.querySelector("#delivery-forwards-none")!.textContent!, /removed since/);
      } finally {
        page.close();
      }
    });
  } finally {
    await app.close();
  }
});
