// communities.revokePreviousSecret with `rotatedAt`: only that rotation's
// previous secret is revoked; after another rotation nothing is, and a
// `rotatedAt` that is no string is refused naming it, nothing changed.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";

Deno.test("revokePreviousSecret with rotatedAt revokes only the rotation it names", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { communities } = createWebhooks(kv);
    const acme = { name: "Acme", tenantId: "t1", baseUrl: "https://c.example", clientSecret: btoa("s0") };
    await communities.save(acme);
    await communities.save({ ...acme, clientSecret: btoa("s1") });
    const first = (await communities.secretRotation("t1"))!;
    await new Promise((r) => setTimeout(r, 5)); // another millisecond
    await communities.save({ ...acme, clientSecret: btoa("s2") });
    const second = (await communities.secretRotation("t1"))!;
    assert.notEqual(first.rotatedAt, second.rotatedAt);

    assert.equal(await communities.revokePreviousSecret("t1", { rotatedAt: first.rotatedAt }), false);
    assert.deepEqual(await communities.secretRotation("t1"), second);
    await assert.rejects(
      communities.revokePreviousSecret("t1", { rotatedAt: 42 as unknown as string }),
      (err: Error) => err instanceof TypeError && /'rotatedAt' must be a string, got 42/.test(err.message),
    );
    assert.deepEqual(await communities.secretRotation("t1"), second);
    assert.equal(await communities.revokePreviousSecret("t1", { rotatedAt: second.rotatedAt }), true);
    assert.equal(await communities.secretRotation("t1"), null);
    assert.equal(await communities.revokePreviousSecret("t1", { rotatedAt: second.rotatedAt }), false);
  } finally {
    kv.close();
  }
});
