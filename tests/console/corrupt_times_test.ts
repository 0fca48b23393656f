// A stored time that is no valid date (a record from elsewhere, a hand-edited KV) is shown as unknown: the pages
// that showed it through `new Date(x).toISOString()` answered 500, its RangeError thrown.

import assert from "node:assert/strict";
import { createRelay } from "../../webhooks/mod.ts";
import { deadLetter, storeDead } from "./_dead_letters.ts";
import { parse, withSignedInHook } from "./_helpers.ts";

/** No date: beyond the largest time a Date holds. */
const CORRUPT = 8.64e15 + 1;

Deno.test("Forward to shows a dead letter whose stored time is no date, its time unknown", async () => {
  await withSignedInHook({}, async ({ t, client, hookId }) => {
    const relay = createRelay(t.kv);
    const destination = await relay.destinations.add({ url: "https://app.example/in", hookIds: [hookId] });
    await relay.close();
    await storeDead(t.kv, { ...deadLetter(1, destination.id, hookId), deadAt: CORRUPT });
    const res = await client.fetch(`/webhooks/${hookId}/forward`);
    const html = await res.text();
    assert.equal(res.status, 200, html.slice(0, 300));
    const page = parse(html);
    try {
      const row = page.document.querySelector("#forward-dead tr[data-entry]");
      assert.match(row?.querySelector("td")?.textContent ?? "", /unknown/);
    } finally {
      page.close();
    }
  });
});
