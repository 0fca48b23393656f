// createReceiver()'s reporting and extension hooks: onAttempt (one report per
// request, secrets removed) and accept (a last check before anything is claimed).

import assert from "node:assert/strict";
import { item, NOW, post, REF_A, SECRET_A, SIGN_A, signA, withReceiver } from "./_receiver.ts";

Deno.test("handle() reports each attempt once, without the signature, and a throwing onAttempt changes nothing", async () => {
  await withReceiver(async ({ receiver, attempts }) => {
    const header = await signA();
    const signature = /signature=(.*)$/.exec(header)![1];
    const body = JSON.stringify([item(REF_A, "x".repeat(5000))]);
    const res = await receiver.handle(
      post({ authorization: header, cookie: "cw_session=s3cret", "x-tenant-id": "tenant-a" }, body),
    );
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(attempts.length, 1);
    const [attempt] = attempts;
    assert.equal(attempt.status, 200);
    assert.equal(attempt.reason, "Delivered");
    assert.equal(attempt.tenantId, "tenant-a");
    assert.equal(attempt.clientId, "client-a");
    assert.equal(attempt.receivedAt, NOW);
    assert.ok(attempt.durationMs >= 0);
    assert.equal(attempt.bodyExcerpt, body.slice(0, 2048));
    assert.equal(
      attempt.headers.authorization,
      `JiveEXTN algorithm=HmacSHA256&client_id=client-a&jive_url=${
        encodeURIComponent(SIGN_A.jiveUrl)
      }&tenant_id=tenant-a&timestamp=${NOW}`,
    );
    assert.equal(attempt.headers.cookie, "[removed]");
    assert.equal(attempt.headers["x-tenant-id"], "tenant-a");
    const text = JSON.stringify(attempt);
    assert.ok(!text.includes(signature) && !text.includes(decodeURIComponent(signature)));
    assert.ok(!text.includes("s3cret") && !text.includes(SECRET_A));
    // Other schemes keep their name only.
    await (await receiver.handle(post({ authorization: "Bearer tok3n" }, "[]"))).body?.cancel();
    await (await receiver.handle(post({ authorization: "tok3n" }, "[]"))).body?.cancel();
    assert.deepEqual(attempts.slice(1).map((a) => a.headers.authorization), ["Bearer [removed]", "[removed]"]);
  });
  await withReceiver(async ({ receiver, delivered }) => {
    const res = await receiver.handle(post({ authorization: await signA() }, JSON.stringify([item()])));
    assert.deepEqual(await res.json(), { received: 1 });
    const bad = await receiver.handle(post({}, "[]"));
    assert.equal(bad.status, 401);
    await bad.body?.cancel();
    assert.equal(delivered.length, 1);
  }, {
    onAttempt: () => {
      throw new Error("the log is down");
    },
  });
});

Deno.test("handle() answers 404 when accept refuses, handing nothing on and claiming nothing", async () => {
  let allow = false;
  await withReceiver(async ({ receiver, delivered }) => {
    const header = await signA();
    const refused = await receiver.handle(post({ authorization: header }, JSON.stringify([item()])));
    assert.equal(refused.status, 404);
    assert.deepEqual(await refused.json(), { error: "Unknown webhook: this endpoint does not take these webhooks" });
    assert.equal(delivered.length, 0);
    allow = true;
    const accepted = await receiver.handle(post({ authorization: header }, JSON.stringify([item()])));
    assert.deepEqual(await accepted.json(), { received: 1 });
  }, {
    accept: ({ request, community, webhooks }) => {
      assert.equal(request.url, "http://127.0.0.1/hooks");
      assert.equal(community.tenantId, "tenant-a");
      assert.deepEqual(webhooks.map((w) => w.id), ["hook-a"]);
      return allow;
    },
  });
});
