// A postback that arrives while the hook's destination is disabled is not forwarded to it (a disabled destination
// gets no new entries, docs/relay.md). A newcomer who disabled it, triggered, and opened the delivery must not be told
// that the hook had no destination when it arrived (it had one, disabled), nor, on disabling, be led to think that
// what arrives meanwhile waits for the enable: the page says that postbacks arriving meanwhile are not forwarded.

import assert from "node:assert/strict";
import { createRelay } from "../../webhooks/mod.ts";
import { csrfOf, parse, trigger, withSignedInHook } from "./_helpers.ts";
import { startApp, until } from "../webhooks/relay/fixtures.ts";

Deno.test("a delivery that arrived while its destination was disabled says so, not that the hook had none", async () => {
  const app = startApp();
  try {
    await withSignedInHook({ relayWorker: true }, async ({ t, client, hookId, platformId }) => {
      const forward = `/webhooks/${hookId}/forward`;
      const before = await client.text(forward, 200);
      await (await client.post(forward, { _csrf: csrfOf(before), url: app.url })).body?.cancel();
      const [destination] = await createRelay(t.kv).destinations.list();

      const disabled = await client.follow(
        await client.post(`${forward}/${destination.id}/enabled`, { _csrf: csrfOf(before), enabled: "0" }),
      );
      const notice = await disabled.text();
      assert.match(notice, /The destination is disabled: nothing is sent to it/);
      assert.match(notice, /postbacks that arrive meanwhile are not forwarded to it/);

      assert.deepEqual(await trigger(t.origin, { webhookId: await platformId() }), [200]);
      const list = await client.text(`/deliveries?hook=${hookId}`, 200);
      const id = /href="\/deliveries\/(q[^"?]+)"/.exec(list)?.[1] ?? "";
      let html = "";
      await until(async () => /delivery-forwards-none/.test(html = await client.text(`/deliveries/${id}`, 200)), 5_000);
      const page = parse(html);
      try {
        const none = page.document.querySelector("#delivery-forwards-none")!.textContent!;
        assert.doesNotMatch(none, /had no destination when this arrived/);
        assert.match(none, /no enabled destination/);
        assert.match(none, /removed since/);
      } finally {
        page.close();
      }
      assert.equal(app.received.length, 0);
    });
  } finally {
    await app.close();
  }
});
