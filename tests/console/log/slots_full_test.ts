// Past 32 processes on one log: every writer slot is leased by another, so a
// further console numbers nothing. It must answer so that the platform sends
// the postback again (not 200 with nothing stored), and serve once a slot is
// free.

import assert from "node:assert/strict";
import { trigger, withHook } from "../_helpers.ts";

Deno.test("a console that finds all 32 writer slots leased answers 500 and stores nothing; once one is free it serves", () =>
  withHook(async (t, hook) => {
    const lease = (until: number) =>
      Promise.all(
        Array.from({ length: 32 }, (_, s) => t.kv.set(["console_delivery_slot", s], { owner: "other", until })),
      );
    await lease(Date.now() + 600_000);
    assert.deepEqual(await trigger(t.origin, { webhookId: hook.platformId }), [500]);
    // A forged request is still refused; it is not logged (no number to log it at).
    const forged = await fetch(hook.callback, { method: "POST", body: "[]", headers: { authorization: "JiveEXTN x" } });
    assert.equal(forged.status, 401);
    await forged.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 200)); // a refused request is logged after its answer
    assert.equal((await t.app.deliveries.list({ limit: 10 })).length, 0);
    // The other processes stopped: their leases ran out.
    await lease(Date.now() - 1);
    assert.deepEqual(await trigger(t.origin, { webhookId: hook.platformId }), [200]);
    assert.equal((await t.app.deliveries.list({ limit: 10 })).length, 1);
  }));
