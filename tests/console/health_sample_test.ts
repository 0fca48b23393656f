// The webhooks list's health reads a hook's newest 100 deliveries only
// (HEALTH_SAMPLE): a hook with more in the last 24 hours must not be shown
// as having had 100 in 24 h. docs/console.md, Walk-through step 5, says what
// the cell holds.

import assert from "node:assert/strict";
import { parse, withHook } from "./_helpers.ts";

function item(title: string): unknown {
  return { webhook: "https://c.example/api/core/v3/webhooks/1", activity: { verb: "jive:created", title } };
}

Deno.test("a hook with more than 100 deliveries in 24 h is not shown as having had 100 in 24 h", async () => {
  await withHook(async (t, { id }, client) => {
    for (let p = 0; p < 3; p++) {
      await t.app.deliveries.add(id, Array.from({ length: 40 }, (_, i) => item(`Item ${p}-${i}`)));
    }
    const page = parse(await client.text("/webhooks", 200));
    try {
      const cell = page.document.querySelector(`tr[data-webhook="${id}"] .health-cell`)?.textContent ?? "";
      assert.doesNotMatch(cell, /of 100 in 24 h/, "120 arrived in 24 h, not 100");
      assert.match(cell, /0% rejected of the latest 100 \(more in 24 h\)$/);
    } finally {
      page.close();
    }
    const health = JSON.parse(await client.text(`/webhooks/health.json?id=${id}`, 200)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(health[id] as object).sort(), ["last", "more", "rejected", "total"]);
    assert.equal((health[id] as { more: boolean }).more, true);
  });
});

Deno.test("a hook with fewer than 100 deliveries in 24 h shows its count, with no 'more'", async () => {
  await withHook(async (t, { id }, client) => {
    await t.app.deliveries.add(id, [item("One"), item("Two")]);
    const page = parse(await client.text("/webhooks", 200));
    try {
      const cell = page.document.querySelector(`tr[data-webhook="${id}"] .health-cell`)?.textContent ?? "";
      assert.match(cell, /0% rejected of 2 in 24 h$/);
    } finally {
      page.close();
    }
    const health = JSON.parse(await client.text(`/webhooks/health.json?id=${id}`, 200)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(health[id] as object).sort(), ["last", "rejected", "total"]);
  });
});
