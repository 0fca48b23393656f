// A community entry (["community", tenantId]) edited by hand: one holding another tenant's record (copied over, or
// its tenantId changed) is no community of this tenant, as communities.findByTenantID says; junk verifies nothing.
// The receiver answers 401 and hands nothing on, never a 500 nor a postback with another tenant's community.

import assert from "node:assert/strict";
import { item, NOW, post, SECRET_B, SIGN_A, SIGN_B, signA, withReceiver } from "../_receiver.ts";

const KEY_A: Deno.KvKey = ["community", "tenant-a"];

Deno.test("receiver: community B's record copied under tenant A's key verifies no postback of tenant A", async () => {
  await withReceiver(async ({ kv, hooks, receiver, delivered }) => {
    const b = (await hooks.communities.findByTenantID("tenant-b"))!;
    await kv.set(KEY_A, b);
    assert.equal(await hooks.communities.findByTenantID("tenant-a"), null);
    // Signed as B signs, but naming tenant A (whose hook the item names).
    const header = await signA(NOW, { ...SIGN_B, tenantId: "tenant-a" }, SECRET_B);
    const answer = await receiver.handle(post({ authorization: header }, JSON.stringify([item()])));
    await answer.body?.cancel();
    assert.equal(answer.status, 401);
    assert.equal(delivered.length, 0);
    assert.deepEqual((await kv.get(KEY_A)).value, b);
  });
});

Deno.test("receiver: community A's record edited to another tenantId, or into junk, verifies no postback", async () => {
  for (const edit of [(a: object) => ({ ...a, tenantId: "tenant-z" }), () => null, () => 5, () => "x", () => []]) {
    await withReceiver(async ({ kv, hooks, receiver, delivered }) => {
      const value = edit((await hooks.communities.findByTenantID("tenant-a"))!);
      await kv.set(KEY_A, value);
      const answer = await receiver.handle(post({ authorization: await signA(NOW, SIGN_A) }, JSON.stringify([item()])));
      await answer.body?.cancel();
      assert.equal(answer.status, 401, `with ${JSON.stringify(value)}`);
      assert.equal(delivered.length, 0);
      assert.deepEqual((await kv.get(KEY_A)).value, value);
    });
  }
});
