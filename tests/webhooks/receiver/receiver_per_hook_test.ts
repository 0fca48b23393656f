// API.md, "A header is claimed per hook (amended)": "A request is a duplicate
// when its header was already accepted for any hook that its items name; a
// header accepted for hook A does not make a postback to hook B a
// duplicate." Held here in onPostback mode, where a header accepted for one
// hook only is then sent naming both.

import assert from "node:assert/strict";
import { createReceiver, createWebhooks, type Postback } from "../../../webhooks/mod.ts";
import { item, NOW, post, REF_A, seed, signA } from "../_receiver.ts";

const REF_A2 = "https://a.example/api/core/v3/webhooks/12";

Deno.test("onPostback mode: a header accepted for hook A makes any request naming A a duplicate, and not one to B alone", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    await hooks.save({
      id: "hook-a2",
      tenantId: "tenant-a",
      entity: { id: "12", resources: { self: { ref: REF_A2 } } },
    });
    const delivered: Postback[] = [];
    const receiver = createReceiver(hooks, { onPostback: (p) => void delivered.push(p), now: () => NOW });
    const authorization = await signA(); // one header: the platform signs no body
    const answer = async (...refs: string[]) => {
      const res = await receiver.handle(post({ authorization }, JSON.stringify(refs.map((ref) => item(ref)))));
      return [res.status, await res.json()];
    };
    const duplicate = [200, { received: 0, duplicate: true }];
    assert.deepEqual(await answer(REF_A), [200, { received: 1 }]);
    assert.deepEqual(await answer(REF_A, REF_A2), duplicate, "names A, accepted for A");
    assert.deepEqual(await answer(REF_A2), [200, { received: 1 }], "B alone is not a duplicate");
    assert.deepEqual(await answer(REF_A2), duplicate);
    assert.deepEqual(await answer(REF_A2, REF_A), duplicate);
    assert.deepEqual(delivered.map((p) => p.webhook.id), ["hook-a", "hook-a2"]);
  } finally {
    kv.close();
  }
});
