// A dead letter sent again starts a new count of attempts (the relay's `redeliver` gives it a fresh schedule), while
// its attempts before stay listed: the delivery's page said "Delivered, 1 attempt." above a table of two. It says how
// many since it was sent again, and how many in all, as the table lists them.

import assert from "node:assert/strict";
import { createRelay, type DeadLetter } from "../../webhooks/mod.ts";
import { csrfOf, parse, trigger, withSignedInHook } from "./_helpers.ts";
import { startApp, until } from "../webhooks/relay/fixtures.ts";

Deno.test("a forward delivered after Redeliver counts the attempts its table lists", async () => {
  let gone = true;
  const app = startApp(() => gone ? new Response("gone", { status: 410 }) : new Response(null, { status: 204 }));
  try {
    await withSignedInHook({ relayWorker: true }, async ({ t, client, hookId, platformId }) => {
      const forward = `/webhooks/${hookId}/forward`;
      await (await client.post(forward, { _csrf: csrfOf(await client.text(forward, 200)), url: app.url })).body
        ?.cancel();
      const relay = createRelay(t.kv);
      assert.deepEqual(await trigger(t.origin, { webhookId: await platformId() }), [200]);
      await app.waitFor(1);
      let letters: DeadLetter[] = [];
      await until(async () => (letters = (await relay.deadLetters()).values).length === 1, 5_000, "the dead letter");
      gone = false;
      const [destination] = await relay.destinations.list();
      await relay.destinations.update(destination.id, { enabled: true });
      await relay.redeliver(letters[0].id);
      await app.waitFor(2);

      const list = await client.text(`/deliveries?hook=${hookId}`, 200);
      const id = /href="\/deliveries\/(q[^"?]+)"/.exec(list)?.[1] ?? "";
      let html = "";
      await until(async () => /Delivered/.test(html = await client.text(`/deliveries/${id}`, 200)), 5_000, "shown");
      const page = parse(html);
      try {
        const section = page.document.querySelector("#delivery-forwards .forward")!;
        const rows = section.querySelectorAll(".forward-attempts tbody tr").length;
        assert.equal(rows, 2);
        const line = section.querySelector("p")!.textContent!.replace(/\s+/g, " ");
        assert.doesNotMatch(line, /Delivered, 1 attempt\./);
        assert.match(line, /Delivered, 1 attempt since it was sent again \(2 in all\)/);
      } finally {
        page.close();
      }
    });
  } finally {
    await app.close();
  }
});
