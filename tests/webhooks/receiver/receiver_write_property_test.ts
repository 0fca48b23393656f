// A property of the receiver's write mode: whatever the interleaving of
// copies, replays, failing attempts and group sizes, no postback is stored
// twice, none answered 200 is lost, and none stored in part.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createReceiver, createWebhooks } from "../../../webhooks/mod.ts";
import { NOW, post, REF_A, seed, signA } from "../_receiver.ts";

const REF_A2 = "https://a.example/api/core/v3/webhooks/12";

/** One request: which postback (a header and its hook), and whether its consumer fails this time. */
const request = fc.record({ postback: fc.nat({ max: 7 }), fails: fc.boolean(), twoItems: fc.boolean() });
/** Rounds of requests sent at once (a round's size is a group's upper bound). */
const schedule = fc.array(fc.array(request, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 6 });

Deno.test("write mode never stores a postback twice or in part, and never loses one answered 200 (property)", async () => {
  await fc.assert(
    fc.asyncProperty(schedule, fc.boolean(), async (rounds, withSequence) => {
      const kv = await Deno.openKv(":memory:");
      try {
        const hooks = createWebhooks(kv);
        await seed(hooks);
        await hooks.save({ id: "hook-a2", tenantId: "tenant-a", entity: { resources: { self: { ref: REF_A2 } } } });
        const receiver = createReceiver(hooks, {
          now: () => NOW,
          ...(withSequence ? { sequence: ["seq"] } : {}),
          write: (postback, atomic) => {
            if (postback.activity.fails && postback.index === postback.count - 1) throw new Error("consumer failed");
            atomic.set(["inbox", postback.activity.n as number, postback.index], postback.seq ?? 0);
          },
        });
        // Postback n: its own header (two share one, sent to two hooks, as the platform signs in one millisecond).
        const headers = await Promise.all(Array.from({ length: 8 }, (_, n) => signA(NOW - Math.floor(n / 2))));
        const answered = new Map<number, string[]>();
        for (const round of rounds) {
          const answers = await Promise.all(round.map(async ({ postback: n, fails, twoItems }) => {
            const ref = n % 2 ? REF_A2 : REF_A;
            const items = Array.from({ length: twoItems ? 2 : 1 }, () => ({ webhook: ref, activity: { n, fails } }));
            const res = await receiver.handle(post({ authorization: headers[n] }, JSON.stringify(items)));
            return [n, `${res.status} ${JSON.stringify(await res.json())}`] as const;
          }));
          for (const [n, answer] of answers) answered.set(n, [...(answered.get(n) ?? []), answer]);
        }
        const stored = new Map<number, number>();
        for await (const e of kv.list({ prefix: ["inbox"] })) {
          const n = e.key[1] as number;
          stored.set(n, (stored.get(n) ?? 0) + 1);
        }
        for (const [n, answers] of answered) {
          const ok = answers.filter((a) => a.startsWith("200 "));
          const accepted = answers.filter((a) => /^200 \{"received":[12]\}$/.test(a));
          // At most one copy is accepted; a duplicate or an acceptance means it is stored, whole.
          assert.ok(accepted.length <= 1, `postback ${n} accepted twice: ${answers}`);
          if (ok.length > 0) assert.ok(stored.has(n), `postback ${n} answered 200 is lost: ${answers}`);
          if (stored.has(n)) assert.equal(accepted.length, 1, `postback ${n} stored but never accepted: ${answers}`);
          for (const a of answers) assert.match(a, /^(200 |500 |409 )/);
        }
        // Whole: a stored postback has every item of the copy that was accepted.
        for (const [n, count] of stored) {
          const accepted = answered.get(n)!.find((a) => /^200 \{"received":[12]\}$/.test(a))!;
          assert.equal(count, JSON.parse(accepted.slice(4)).received, `postback ${n} stored in part`);
        }
        if (withSequence) {
          const total = [...stored.values()].reduce((a, b) => a + b, 0);
          assert.equal((await kv.get(["seq"])).value ?? 0, total, "the sequence counts every stored item");
        }
      } finally {
        kv.close();
      }
    }),
    { numRuns: 60 },
  );
});
