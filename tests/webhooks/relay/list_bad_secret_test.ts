// A destination record whose stored secret is malformed (a KV edited by hand, or by a tool: `add` has always checked
// the format) is one bad record: `destinations.list()` and `get()` still answer, listing it like any other, so the
// console's pages that list destinations keep working and the others are still delivered to.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";

Deno.test("destinations.list() still answers, the bad one listed, when one stored record's secret is malformed", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    const good = await relay.destinations.add({ url: "http://127.0.0.1:9/good" });
    const bad = await relay.destinations.add({ url: "http://127.0.0.1:9/bad" });
    // The record as stored, its secret's base64 broken, and the version moved as every change moves it.
    const key = ["relay_destination", bad.id];
    const stored = (await kv.get<Record<string, unknown>>(key)).value!;
    assert.ok(typeof stored.secret === "string" && stored.secret.startsWith("whsec_"), "the layout this test edits");
    await kv.atomic().set(key, { ...stored, secret: "whsec_not*base64" })
      .sum(["relay_destinations_version"], 1n).commit();

    const listed = await relay.destinations.list();
    assert.deepEqual(listed.map((d) => d.id).sort(), [good.id, bad.id].sort());
    assert.ok(listed.every((d) => !("secret" in d)), "no secret listed");
    assert.equal((await relay.destinations.get(bad.id))?.url, "http://127.0.0.1:9/bad");
  } finally {
    await relay.close();
    kv.close();
  }
});
