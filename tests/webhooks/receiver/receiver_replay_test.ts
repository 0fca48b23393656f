// createReceiver()'s replay protection: duplicates in every spelling, the
// claim released when onPostback throws, a lease taken over, 50 copies at
// once, and claims that expire and are never scanned.

import assert from "node:assert/strict";
import { item, NOW, post, REF_A, signA, withReceiver } from "../_receiver.ts";

Deno.test("handle() answers a replayed header 200 duplicate, whatever its body or spelling", async () => {
  await withReceiver(async ({ receiver, delivered, attempts }) => {
    const header = await signA();
    const first = await receiver.handle(post({ authorization: header }, JSON.stringify([item()])));
    assert.deepEqual(await first.json(), { received: 1 });
    const [scheme, params] = header.split(" ");
    const signature = decodeURIComponent(/signature=(.*)$/.exec(params)![1]);
    const spellings = [
      header,
      `${scheme.toLowerCase()} ${params}`,
      `  ${scheme}   ${params}  `,
      `${scheme} ${params.replace(/signature=.*$/, `signature=${signature}`)}`,
      `${scheme} ${
        params.replace(
          /signature=.*$/,
          `signature=${encodeURIComponent(signature).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())}`,
        )
      }`,
    ];
    for (const spelling of spellings) {
      const res = await receiver.handle(post({ authorization: spelling }, JSON.stringify([item(), item()])));
      assert.equal(res.status, 200, spelling);
      assert.deepEqual(await res.json(), { received: 0, duplicate: true }, spelling);
    }
    assert.equal(delivered.length, 1);
    assert.equal(attempts.filter((a) => a.duplicate).length, spellings.length);
    // Another timestamp is another header.
    const next = await receiver.handle(post({ authorization: await signA(NOW + 1) }, JSON.stringify([item()])));
    assert.deepEqual(await next.json(), { received: 1 });
  });
});

Deno.test("handle() releases the claim when accept throws (records not cached yet), so the retry is delivered", async () => {
  let failures = 1;
  await withReceiver(async ({ receiver, delivered }) => {
    const header = await signA();
    const body = JSON.stringify([item()]);
    const res = await receiver.handle(post({ authorization: header }, body));
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { error: "Internal error" });
    assert.equal(delivered.length, 0);
    const retry = await receiver.handle(post({ authorization: header }, body));
    assert.deepEqual(await retry.json(), { received: 1 });
    const replay = await receiver.handle(post({ authorization: header }, body));
    assert.deepEqual(await replay.json(), { received: 0, duplicate: true });
    assert.equal(delivered.length, 1);
  }, {
    accept: () => {
      if (failures-- > 0) throw new Error("the mapping could not be read");
      return true;
    },
  });
});

Deno.test("handle() answers 500 without detail when onPostback throws, and delivers the retry", async () => {
  let failures = 1;
  const seen: string[] = [];
  await withReceiver(async ({ receiver }) => {
    const header = await signA();
    const body = JSON.stringify([item(REF_A, "jive:created"), item(REF_A, "jive:liked")]);
    const res = await receiver.handle(post({ authorization: header }, body));
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { error: "Internal error" });
    const retry = await receiver.handle(post({ authorization: header }, body));
    assert.deepEqual(await retry.json(), { received: 2 });
    const replay = await receiver.handle(post({ authorization: header }, body));
    assert.deepEqual(await replay.json(), { received: 0, duplicate: true });
    assert.deepEqual(seen, ["jive:created", "jive:liked", "jive:created", "jive:liked"]);
  }, {
    onPostback: ({ activity, index }) => {
      seen.push(String(activity.verb));
      if (index === 1 && failures-- > 0) throw new Error("secret detail: the store is down");
    },
  });
});

Deno.test("handle() lets a copy take over a pending claim once its lease ran out", async () => {
  const stuck = Promise.withResolvers<void>();
  let calls = 0;
  await withReceiver(async ({ receiver, clock }) => {
    const header = await signA();
    const body = JSON.stringify([item()]);
    // The first taker hangs in onPostback, as a process killed mid-postback would.
    const first = receiver.handle(post({ authorization: header }, body));
    while (calls === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    // A held copy is 409 with Retry-After, not a duplicate: if the first attempt fails, the retry is delivered.
    const during = await receiver.handle(post({ authorization: header }, body));
    assert.equal(during.status, 409);
    assert.equal(during.headers.get("retry-after"), "5");
    assert.deepEqual(await during.json(), { error: "In progress" });
    clock.now += 999;
    const edge = await receiver.handle(post({ authorization: header }, body));
    assert.equal(edge.status, 409);
    assert.deepEqual(await edge.json(), { error: "In progress" });
    clock.now += 1;
    const after = await receiver.handle(post({ authorization: header }, body));
    assert.deepEqual(await after.json(), { received: 1 });
    assert.equal(calls, 2);
    stuck.resolve();
    assert.equal((await first).status, 200);
    const later = await receiver.handle(post({ authorization: header }, body));
    assert.deepEqual(await later.json(), { received: 0, duplicate: true });
  }, {
    claimLeaseMs: 1000,
    onPostback: async () => {
      if (++calls === 1) await stuck.promise;
    },
  });
});

Deno.test("handle() hands 50 simultaneous copies of one signed request on once; the others are held (409)", async () => {
  let calls = 0;
  // The first copy's handling lasts until the 49 others have their answers (5 s at most), so every other copy comes
  // while it runs, however the machine schedules them.
  const others = Promise.withResolvers<void>();
  let answered = 0;
  await withReceiver(async ({ receiver }) => {
    const header = await signA();
    const answers = await Promise.all(
      Array.from(
        { length: 50 },
        () =>
          receiver.handle(post({ authorization: header }, JSON.stringify([item()]))).then((res) => {
            if (++answered === 49) others.resolve();
            return res;
          }),
      ),
    );
    const bodies = await Promise.all(answers.map((res) => res.json()));
    assert.equal(bodies.filter((b) => b.received === 1).length, 1);
    // Copies that came while the first ran are held (409); none is a duplicate of a claim not yet done.
    assert.equal(answers.filter((res) => res.status === 409).length, 49);
    assert.equal(calls, 1);
  }, {
    onPostback: async () => {
      calls++;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([others.promise, new Promise((resolve) => timer = setTimeout(resolve, 5_000))]);
      clearTimeout(timer);
    },
  });
});

Deno.test("the receiver's claims are written with an expiry and found without a scan", async () => {
  await withReceiver(async ({ receiver, kv }) => {
    const lists: unknown[] = [];
    const list = kv.list.bind(kv);
    kv.list = ((selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
      lists.push(selector);
      return list(selector, options);
    }) as typeof kv.list;
    const header = await signA();
    for (let i = 0; i < 3; i++) {
      await (await receiver.handle(post({ authorization: header }, JSON.stringify([item()])))).body?.cancel();
    }
    assert.ok(lists.every((s) => !JSON.stringify(s).includes("webhook_postback_claim")), JSON.stringify(lists));
    const claims = [];
    for await (const entry of list({ prefix: ["webhook_postback_claim"] })) claims.push(entry);
    assert.equal(claims.length, 1);
    assert.deepEqual(claims[0].value, { state: "done", leaseUntil: 0 });
  });
});

Deno.test("handle() answers a copy held by a running attempt 409, and delivers the retry once that attempt failed", async () => {
  const gate = Promise.withResolvers<void>();
  let calls = 0;
  const delivered: unknown[] = [];
  await withReceiver(async ({ receiver }) => {
    const header = await signA();
    const body = JSON.stringify([item()]);
    const first = receiver.handle(post({ authorization: header }, body));
    while (calls === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    const held = await receiver.handle(post({ authorization: header }, body));
    assert.equal(held.status, 409);
    assert.ok(Number(held.headers.get("retry-after")) > 0);
    assert.deepEqual(await held.json(), { error: "In progress" });
    gate.resolve();
    assert.equal((await first).status, 500); // the first attempt failed: nothing was accepted
    const retry = await receiver.handle(post({ authorization: header }, body));
    assert.deepEqual(await retry.json(), { received: 1 });
    assert.equal(delivered.length, 1);
  }, {
    onPostback: async (postback) => {
      if (++calls === 1) {
        await gate.promise;
        throw new Error("the consumer failed");
      }
      delivered.push(postback);
    },
  });
});
