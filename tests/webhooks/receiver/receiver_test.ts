// createReceiver(): every answer of API.md's "Receiving postbacks", in the
// documented order, on a fixed clock, with a real KV.

import assert from "node:assert/strict";
import { createReceiver, createWebhooks } from "../../../webhooks/mod.ts";
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

const MiB = 1024 * 1024;

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

Deno.test("handle() answers 413 from Content-Length alone, signed or not, before reading, and cancels the body", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    for (const headers of [{}, { authorization: await signA() }] as Record<string, string>[]) {
      const { stream, pulled, cancelled } = countedStream(Infinity);
      const res = await receiver.handle(post({ ...headers, "content-length": String(MiB + 1) }, stream));
      assert.equal(res.status, 413);
      assert.deepEqual(await res.json(), { error: `Payload too large: the limit is ${MiB} bytes` });
      assert.equal(pulled(), 0);
      assert.ok(cancelled(), "the upload is stopped");
    }
    assert.equal(delivered.length, 0);
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

Deno.test("handle() answers 413 to a streamed 50 MB body, reading at most maxBytes plus one chunk", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    const chunk = 64 * 1024;
    const { stream, pulled } = countedStream(50 * MiB, chunk);
    const res = await receiver.handle(post({ authorization: await signA() }, stream));
    assert.equal(res.status, 413);
    assert.deepEqual(await res.json(), { error: `Payload too large: the limit is ${MiB} bytes` });
    assert.ok(pulled() <= MiB + chunk, `pulled ${pulled()}`);
    assert.equal(delivered.length, 0);
  });
});

Deno.test("handle() answers an endless body 413, signed or not, reading at most maxBytes plus one chunk", async () => {
  await withReceiver(async ({ receiver }) => {
    const chunk = 1000;
    const cases: Record<string, string>[] = [{ authorization: await signA() }, {}, { authorization: "JiveEXTN ???" }];
    for (const headers of cases) {
      const endless = countedStream(Infinity, chunk);
      const res = await receiver.handle(post(headers, endless.stream));
      assert.equal(res.status, 413, JSON.stringify(headers));
      await res.body?.cancel();
      assert.ok(endless.pulled() > 4096 && endless.pulled() <= 4096 + chunk, `pulled ${endless.pulled()}`);
    }
  }, { maxBytes: 4096 });
});

Deno.test("handle() answers 408 to a body that does not arrive within bodyTimeoutMs", async () => {
  await withReceiver(async ({ receiver, delivered, attempts }) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let cancelled = false;
    const trickle = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('[{"webhook":'));
      },
      pull: () => new Promise((resolve) => timer = setTimeout(resolve, 10_000)),
      cancel() {
        cancelled = true;
      },
    });
    try {
      const started = performance.now();
      const res = await receiver.handle(post({ authorization: await signA() }, trickle));
      assert.equal(res.status, 408);
      assert.deepEqual(await res.json(), { error: "Request timeout: the body did not arrive within 100 ms" });
      assert.ok(performance.now() - started < 5_000);
      assert.ok(cancelled);
      assert.equal(delivered.length, 0);
      assert.equal(attempts[0].bodyExcerpt, '[{"webhook":');
    } finally {
      clearTimeout(timer);
    }
  }, { bodyTimeoutMs: 100 });
});

Deno.test("handle(): each slow body is cut off at its own deadline, while bodies that arrive are served meanwhile", async () => {
  await withReceiver(async ({ receiver, delivered }) => {
    const timers: ReturnType<typeof setTimeout>[] = [];
    const slow = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("["));
        },
        pull: () => new Promise((resolve) => timers.push(setTimeout(resolve, 10_000))),
      });
    try {
      const lasted: number[] = [];
      const slowOnes: Promise<void>[] = [];
      for (let i = 0; i < 3; i++) {
        // Started 80 ms apart: each ends 200 ms after its own start, not at the first one's deadline.
        const authorization = await signA(NOW - i);
        const started = performance.now();
        slowOnes.push(
          receiver.handle(post({ authorization }, slow())).then(async (res) => {
            assert.equal(res.status, 408);
            await res.body?.cancel();
            lasted[i] = performance.now() - started;
          }),
        );
        const fast = await receiver.handle(
          post({ authorization: await signA(NOW - 10 - i) }, JSON.stringify([item()])),
        );
        assert.equal(fast.status, 200);
        await fast.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 80));
      }
      await Promise.all(slowOnes);
      assert.equal(delivered.length, 3, "the bodies that arrived were delivered while the slow ones waited");
      for (const [i, ms] of lasted.entries()) {
        assert.ok(ms >= 195 && ms < 2_000, `slow body ${i} was cut off after ${ms.toFixed(0)} ms`);
      }
    } finally {
      timers.forEach(clearTimeout);
    }
  }, { bodyTimeoutMs: 200 });
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

Deno.test("handle() takes a postback to a stored hook whatever the length of its self URL", async () => {
  await withReceiver(async ({ receiver, delivered, hooks }) => {
    // The store keeps (and finds) a hook of any self URL; the receiver must not refuse what it stored.
    const ref = `https://a.example/api/core/v3/webhooks/${"9".repeat(9_000)}`;
    await hooks.save({ id: "hook-long", tenantId: "tenant-a", entity: { resources: { self: { ref } } } });
    assert.equal((await hooks.findByWebhookURL(ref))[0]?.id, "hook-long");
    const res = await receiver.handle(post({ authorization: await signA() }, JSON.stringify([item(ref)])));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { received: 1 });
    assert.equal(delivered[0].webhook.id, "hook-long");
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

Deno.test("handle() hands each item on in order, then answers 200 { received }", async () => {
  await withReceiver(async ({ receiver, delivered, hooks, attempts }) => {
    await hooks.save({ id: "hook-a2", tenantId: "tenant-a", entity: { resources: { self: { ref: REF_A + "0" } } } });
    const body = [item(REF_A, "jive:created"), item(REF_A + "0", "jive:liked"), item(REF_A, "jive:commented")];
    const res = await receiver.handle(post({ authorization: await signA(NOW - 1000) }, JSON.stringify(body)));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json; charset=utf-8");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.deepEqual(await res.json(), { received: 3 });
    assert.deepEqual(delivered.map((p) => [p.webhook.id, p.activity.verb, p.index, p.count]), [
      ["hook-a", "jive:created", 0, 3],
      ["hook-a2", "jive:liked", 1, 3],
      ["hook-a", "jive:commented", 2, 3],
    ]);
    const [first] = delivered;
    // API.md's shape to a deep comparison; the extras are there to read.
    assert.deepEqual(first, {
      activity: body[0].activity,
      webhook: first.webhook,
      community: first.community,
      receivedAt: NOW,
    });
    assert.deepEqual(Object.keys(first), ["activity", "webhook", "community", "receivedAt"]);
    assert.deepEqual(first.activity, body[0].activity);
    assert.equal(first.community.tenantId, "tenant-a");
    assert.equal(first.receivedAt, NOW);
    assert.match(first.postbackId, /^[0-9a-f]{64}$/);
    assert.ok(delivered.every((p) => p.postbackId === first.postbackId));
    assert.equal(attempts[0].postbackId, first.postbackId);
    assert.equal(attempts[0].timestampAgeMs, 1000);
    assert.equal(attempts[0].itemCount, 3);
    // An empty array is accepted and claims its header for no hook: its copy is a duplicate, a postback
    // of that header to a hook is not (a header is claimed per hook).
    const empty = await receiver.handle(post({ authorization: await signA(NOW - 2) }, "[]"));
    assert.deepEqual(await empty.json(), { received: 0 });
    const copy = await receiver.handle(post({ authorization: await signA(NOW - 2) }, "[]"));
    assert.deepEqual(await copy.json(), { received: 0, duplicate: true });
    const again = await receiver.handle(post({ authorization: await signA(NOW - 2) }, JSON.stringify([item()])));
    assert.deepEqual(await again.json(), { received: 1 });
    assert.equal(delivered.length, 4);
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

Deno.test("createReceiver() checks its arguments", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    const onPostback = () => {};
    assert.throws(
      () => createReceiver(hooks, {} as never),
      new TypeError("Cannot create receiver: give exactly one of 'onPostback' and 'write'"),
    );
    assert.throws(
      () => createReceiver(hooks, { onPostback, write: () => {} }),
      new TypeError("Cannot create receiver: give exactly one of 'onPostback' and 'write'"),
    );
    assert.throws(
      () => createReceiver(hooks, { write: "x" as never }),
      new TypeError("Cannot create receiver: 'write' must be a function"),
    );
    assert.throws(
      () => createReceiver(hooks, { onPostback: 1 as never }),
      new TypeError("Cannot create receiver: 'onPostback' must be a function"),
    );
    assert.throws(
      () => createReceiver(hooks, { onPostback, sequence: ["seq"] }),
      new TypeError("Cannot create receiver: 'sequence' is only used with 'write'"),
    );
    assert.throws(
      () => createReceiver(hooks, { write: () => {}, sequence: [] }),
      new TypeError("Cannot create receiver: 'sequence' must be a KV key (a non-empty array)"),
    );
    assert.throws(
      () => createReceiver(hooks, null as never),
      new TypeError("Cannot create receiver: 'options' must be an object with 'onPostback' or 'write'"),
    );
    assert.throws(
      () => createReceiver(hooks, { onPostback, onAttempt: 1 as never }),
      new TypeError("Cannot create receiver: 'onAttempt' must be a function"),
    );
    assert.throws(
      () => createReceiver({ ...hooks }, { onPostback }),
      new TypeError("Cannot create receiver: 'hooks' was not made by createWebhooks; pass the KV as 'kv'"),
    );
    assert.ok(createReceiver({ ...hooks }, { onPostback, kv }));
    for (const name of ["maxBytes", "maxItems", "bodyTimeoutMs", "claimLeaseMs"]) {
      assert.throws(
        () => createReceiver(hooks, { onPostback, [name]: 0 }),
        new RangeError(`Cannot create receiver: '${name}' must be a positive integer, got 0`),
      );
    }
    assert.throws(
      () => createReceiver(hooks, { onPostback, maxAgeMs: -1 }),
      new RangeError("Cannot create receiver: 'maxAgeMs' must be a non-negative number, got -1"),
    );
  } finally {
    kv.close();
  }
});
