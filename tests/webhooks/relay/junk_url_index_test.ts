/**
 * A URL's index entry (["relay_destination_url", sha256(url)]) edited by hand into junk (null, a number, a string, an
 * object, a list of numbers): every add, update or removal of a destination at that URL read its ids and threw
 * ("slot.ids.filter is not a function"), for good. The junk now counts as no ids but those of the destinations stored
 * at the URL, and the next change writes the entry right; `unique` still refuses a second destination there.
 */

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";

const URL_A = "http://127.0.0.1:9/a";

async function hashOf(url: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(url));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("a junk URL index entry holds back no add or removal at its URL, and unique still refuses a second", async () => {
  const key = ["relay_destination_url", await hashOf(URL_A)];
  for (const junk of [null, 5, "abc", { ids: 1 }, [1, 2]]) {
    const kv = await Deno.openKv(":memory:");
    const relay = createRelay(kv, { allowPrivateNetwork: true });
    try {
      const first = await relay.destinations.add({ url: URL_A, unique: true });
      await kv.set(key, junk);
      const what = `beside ${JSON.stringify(junk)}`;
      await assert.rejects(relay.destinations.add({ url: URL_A, unique: true }), /already receives/, what);
      assert.equal(await relay.destinations.remove(first.id), true, what);
      const again = await relay.destinations.add({ url: URL_A, unique: true });
      assert.deepEqual((await kv.get(key)).value, [again.id], what);
    } finally {
      await relay.close();
      kv.close();
    }
  }
});
