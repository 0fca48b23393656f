// createReceiver(): API.md's "Receiving postbacks" refusals other than the
// body's size and time: 405, 401 (and the timestamp window's edges), 400,
// 413 for too many items, 404 and 500, on a fixed clock, with a real KV.

import assert from "node:assert/strict";
import {
  countedStream,
  item,
  NOW,
  post,
  REF_A,
  REF_B,
  SECRET_B,
  SIGN_A,
  SIGN_B,
  signA,
  withReceiver,
} from "../_receiver.ts";

Deno.test("handle() answers 405 to a method other than POST, reading nothing and cancelling the body", async () => {
  await withReceiver(async ({ receiver, delivered, attempts }) => {
    for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
      const body = method === "GET" ? null : countedStream(Infinity);
      const res = await receiver.handle(post({ authorization: await signA() }, body?.stream ?? null, method));
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get("allow"), "POST");
      assert.deepEqual(await res.json(), { error: "Method not allowed: use POST" });
      assert.equal(body?.pulled() ?? 0, 0);
      assert.equal(body?.cancelled() ?? true, true, `${method}: the upload is stopped`);
    }
    assert.equal(delivered.length, 0);
    assert.deepEqual(attempts.map((a) => a.status), [405, 405, 405, 405]);
  });
});

Deno.test("handle() answers 401 to every header that does not verify, after the body's size (API.md's order)", async () => {
  await withReceiver(async ({ receiver, delivered, attempts, hooks }) => {
    await hooks.communities.save({
      name: "C",
      tenantId: "tenant-c",
      baseUrl: "https://c.example",
      clientId: "client-c",
    });
    const cases: [string, string | null, string][] = [
      ["missing", null, "Unauthorized: Missing Authorization header"],
      ["another scheme", "Bearer abc", "Unauthorized: Authorization scheme must be JiveEXTN"],
      ["garbage", "JiveEXTN ???", "Unauthorized: JiveEXTN header has no signature as its last parameter"],
      [
        "unknown tenant",
        await signA(NOW, { ...SIGN_A, tenantId: "nobody" }),
        "Unauthorized: JiveEXTN signature does not match",
      ],
      [
        "another community's secret",
        await signA(NOW, SIGN_A, SECRET_B),
        "Unauthorized: JiveEXTN signature does not match",
      ],
      [
        "B's client id on A's tenant",
        await signA(NOW, { ...SIGN_A, clientId: "client-b" }),
        "Unauthorized: JiveEXTN signature does not match",
      ],
      [
        "a community without a secret",
        await signA(NOW, { ...SIGN_A, tenantId: "tenant-c", clientId: "client-c" }),
        "Unauthorized: JiveEXTN signature does not match",
      ],
      ["expired", await signA(NOW - 5 * 60_000 - 1), "Unauthorized: JiveEXTN timestamp is too old: 300001 ms ago"],
      ["future", await signA(NOW + 30_001), "Unauthorized: JiveEXTN timestamp is in the future: 30001 ms ahead"],
      [
        "a tenant id too long for a KV key",
        await signA(NOW, { ...SIGN_A, tenantId: "t".repeat(3000) }),
        "Unauthorized: JiveEXTN signature does not match",
      ],
      [
        "expired, of an unknown tenant (answered as for a known one: tenants cannot be probed)",
        await signA(NOW - 5 * 60_000 - 1, { ...SIGN_A, tenantId: "nobody" }),
        "Unauthorized: JiveEXTN timestamp is too old: 300001 ms ago",
      ],
    ];
    const body = JSON.stringify([item()]);
    for (const [name, authorization, error] of cases) {
      const headers: Record<string, string> = authorization === null ? {} : { authorization };
      const res = await receiver.handle(post(headers, body));
      assert.equal(res.status, 401, name);
      assert.deepEqual(await res.json(), { error }, name);
    }
    assert.equal(delivered.length, 0);
    assert.ok(attempts.every((a) => a.status === 401 && a.bodyExcerpt === body));
    // The report says what the answer does not: which check failed.
    assert.equal(attempts[3].reason, "No community has this tenant id");
    assert.equal(attempts[5].reason, "The client id is not the community's");
    assert.equal(attempts[6].reason, "The community's client secret cannot verify signatures");
  });
});

Deno.test("handle() accepts a timestamp at the very edges of the window", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    for (const timestamp of [NOW - 5 * 60_000, NOW + 30_000]) {
      const res = await receiver.handle(post({ authorization: await signA(timestamp) }, JSON.stringify([item()])));
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    assert.equal(delivered.length, 2);
  }, {});
});

Deno.test("handle() answers 400 to a body that is not a JSON array of { webhook, activity }", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    const bodies: [string, string][] = [
      ["", "Bad request: the body is not JSON"],
      ["[", "Bad request: the body is not JSON"],
      ['{"webhook":"x"}', "Bad request: the body must be a JSON array of { webhook, activity }"],
      ["null", "Bad request: the body must be a JSON array of { webhook, activity }"],
      ["[1]", "Bad request: item 0 is not an object"],
      [JSON.stringify([item(), null]), "Bad request: item 1 is not an object"],
      [JSON.stringify([{ activity: {} }]), "Bad request: item 0 has no 'webhook' URL"],
      [JSON.stringify([{ webhook: "", activity: {} }]), "Bad request: item 0 has no 'webhook' URL"],
      [JSON.stringify([{ webhook: 7, activity: {} }]), "Bad request: item 0 has no 'webhook' URL"],
      [JSON.stringify([{ webhook: REF_A }]), "Bad request: item 0 has no 'activity' object"],
      [JSON.stringify([{ webhook: REF_A, activity: [] }]), "Bad request: item 0 has no 'activity' object"],
      [JSON.stringify([{ webhook: REF_A, activity: "x" }]), "Bad request: item 0 has no 'activity' object"],
    ];
    for (const [body, error] of bodies) {
      const res = await receiver.handle(post({ authorization: await signA() }, body));
      assert.equal(res.status, 400, body);
      assert.deepEqual(await res.json(), { error }, body);
    }
    assert.equal(delivered.length, 0);
  });
});

Deno.test("handle() answers 413 to more items than maxItems (default 100), handing none on", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    const res = await receiver.handle(post({ authorization: await signA() }, JSON.stringify(Array(101).fill(item()))));
    assert.equal(res.status, 413);
    assert.deepEqual(await res.json(), { error: "Too many items: a postback holds at most 100" });
    const ok = await receiver.handle(
      post({ authorization: await signA(NOW - 1) }, JSON.stringify(Array(100).fill(item()))),
    );
    assert.deepEqual(await ok.json(), { received: 100 });
    assert.equal(delivered.length, 100);
  });
  await withReceiver(async ({ receiver }) => {
    const res = await receiver.handle(post({ authorization: await signA() }, JSON.stringify([item(), item(), item()])));
    assert.equal(res.status, 413);
    assert.deepEqual(await res.json(), { error: "Too many items: a postback holds at most 2" });
  }, { maxItems: 2 });
});

Deno.test("handle() answers 404 to an item of another tenant or an unknown hook, handing nothing on", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    const bodies = [
      [item(REF_B)],
      [item(REF_A), item(REF_B)],
      [item(REF_A), item("https://a.example/api/core/v3/webhooks/404")],
    ];
    for (const [n, body] of bodies.entries()) {
      const res = await receiver.handle(post({ authorization: await signA(NOW - n) }, JSON.stringify(body)));
      assert.equal(res.status, 404);
      const answer = await res.json();
      assert.match(answer.error, /^Unknown webhook: item \d names no webhook of this community$/);
    }
    assert.equal(delivered.length, 0);
    // A 404 accepts nothing: the same header with A's own item is delivered.
    const own = await receiver.handle(post({ authorization: await signA(NOW) }, JSON.stringify([item(REF_A)])));
    assert.deepEqual(await own.json(), { received: 1 });
    // B's item is accepted when B signs.
    const res = await receiver.handle(
      post({ authorization: await signA(NOW, SIGN_B, SECRET_B) }, JSON.stringify([item(REF_B)])),
    );
    assert.deepEqual(await res.json(), { received: 1 });
    assert.equal(delivered[1].webhook.id, "hook-b");
  });
});

Deno.test("handle() answers 500 without detail when the KV fails", async () => {
  await withReceiver(async ({ receiver, kv }) => {
    kv.close();
    const res = await receiver.handle(post({ authorization: await signA() }, JSON.stringify([item()])));
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { error: "Internal error" });
  });
});
