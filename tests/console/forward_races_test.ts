// The "Forward to" actions sent at once from two tabs: two users' removals of a destination shared by their hooks each
// take their own hook off (neither is lost by the other's write, made from what it read before).

import assert from "node:assert/strict";
import { csrfOf, registerHook, withHook } from "./_helpers.ts";
import { createRelay } from "../../webhooks/mod.ts";

Deno.test("Forward to: Remove of a shared destination on both hooks' pages at once (two tabs) takes both hooks off", async () => {
  await withHook(async (t, hook, client) => {
    const other = await registerHook(client, t.origin, { events: ["discussion"] });
    const relay = createRelay(t.kv);
    try {
      const csrf = csrfOf(await client.text(`/webhooks/${hook.id}/forward`, 200));
      for (let i = 0; i < 5; i++) {
        const shared = await relay.destinations.add({ url: `https://app.example/both${i}`, hookIds: [hook.id, other] });
        const answers = await Promise.all([hook.id, other].map(async (id) => {
          const res = await client.post(`/webhooks/${id}/forward/${shared.id}/remove`, { _csrf: csrf });
          await res.body?.cancel();
          return res.headers.get("location");
        }));
        // Each user asked that their hook's postbacks go there no more: neither removal is lost.
        assert.equal(await relay.destinations.get(shared.id), null, `round ${i}: ${JSON.stringify(answers)}`);
        // One of them took the last hook off: that one says it is removed, not that it still forwards others'.
        assert.ok(answers.some((a) => a?.endsWith("?notice=removed")), JSON.stringify(answers));
      }
    } finally {
      await relay.close();
    }
  });
});
