// `relay.entryState(id)` given an id no entry has, however it is spelled: `null`, as `relay.deadLetter(id)` and
// `relay.attempts(id)` answer it, never a KV error about key sizes. A key holds at most 2,048 bytes: an id of 700
// euro signs is 700 characters but 2,100 bytes of UTF-8. Run on a real in-memory KV that holds one waiting entry.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, writeAll } from "./fixtures.ts";

const ODD_IDS = [
  "€".repeat(700), // 2,100 bytes in a key
  "😀".repeat(600), // 2,400 bytes, 1,200 UTF-16 units
  "x".repeat(2_048),
  "\ud800", // a lone surrogate
  "a\u0000b",
  "../msg_0",
  `msg_${"0".repeat(26)}`,
];

Deno.test("relay.entryState answers null for an id no entry has, whatever its characters or size", async () => {
  const kv = await Deno.openKv(":memory:");
  const relay = createRelay(kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(kv);
    await relay.destinations.add({ url: "http://127.0.0.1:9/hooks" });
    await relay.destinations.list();
    await writeAll(kv, relay.write, [postback("h1", 0)]);
    for (const id of ODD_IDS) {
      const label = `${id.length} characters, ${new TextEncoder().encode(id).length} bytes`;
      assert.equal(await relay.deadLetter(id), null, `deadLetter: ${label}`);
      assert.equal(await relay.entryState(id), null, `entryState: ${label}`);
    }
  } finally {
    await relay.close();
    kv.close();
  }
});
