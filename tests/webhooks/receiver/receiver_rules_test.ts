// Rules of API.md's "Receiving postbacks" that a hand-made mutant of the
// receiver broke without any test failing: each test here fails on that mutant.

import assert from "node:assert/strict";
import { item, post, signA, withReceiver } from "../_receiver.ts";

Deno.test("onPostback is called once per item in order, each call after the previous one settled", async () => {
  // A mutant that called onPostback for every item at once (Promise.all) still answered 200 { received: 3 }.
  const steps: string[] = [];
  await withReceiver(async ({ receiver }) => {
    const body = JSON.stringify([item(undefined, "jive:a"), item(undefined, "jive:b"), item(undefined, "jive:c")]);
    const res = await receiver.handle(post({ authorization: await signA() }, body));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { received: 3 });
  }, {
    onPostback: async ({ activity }) => {
      steps.push(`start ${activity.verb}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      steps.push(`end ${activity.verb}`);
    },
  });
  assert.deepEqual(steps, ["start jive:a", "end jive:a", "start jive:b", "end jive:b", "start jive:c", "end jive:c"]);
});

Deno.test("an onPostback that throws on one item is not called for the items after it, and the answer is 500", async () => {
  const seen: unknown[] = [];
  await withReceiver(async ({ receiver }) => {
    const body = JSON.stringify([item(undefined, "jive:a"), item(undefined, "jive:b")]);
    const res = await receiver.handle(post({ authorization: await signA() }, body));
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { error: "Internal error" });
  }, {
    onPostback: async ({ activity }) => {
      seen.push(activity.verb);
      await new Promise((resolve) => setTimeout(resolve, 5));
      throw new Error("the consumer's store is down");
    },
  });
  assert.deepEqual(seen, ["jive:a"]);
});
