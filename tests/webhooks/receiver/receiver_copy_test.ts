// What write and onPostback get is their own copy of the community and the
// records (webhooks/receiver/_copy.ts): equal to what is stored, whatever JSON an
// entity holds, an own "__proto__" kept as a property, Dates and cycles
// copied as structuredClone copies them, and nothing a consumer changes
// reaching the receiver's cache or the next postback.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createReceiver, createWebhooks, type Postback } from "../../../webhooks/mod.ts";
import { item, NOW, post, REF_A, seed, signA } from "../_receiver.ts";

async function receiving(
  entity: Record<string, unknown>,
  run: (got: Postback[], send: () => Promise<void>) => Promise<void>,
) {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    await hooks.save({
      id: "hook-a",
      tenantId: "tenant-a",
      entity: { ...entity, resources: { self: { ref: REF_A } } },
    });
    const got: Postback[] = [];
    const receiver = createReceiver(hooks, { onPostback: (postback) => void got.push(postback), now: () => NOW });
    let at = NOW - 100_000;
    const send = async () => {
      const res = await receiver.handle(post({ authorization: await signA(at++) }, JSON.stringify([item()])));
      assert.equal(res.status, 200, await res.text());
    };
    await run(got, send);
  } finally {
    kv.close();
  }
}

Deno.test("each postback's record equals the stored one for any JSON entity, and is its own copy", async () => {
  await fc.assert(
    fc.asyncProperty(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 }), async (extra) => {
      const entity = JSON.parse(JSON.stringify(extra)) as Record<string, unknown>;
      delete entity.resources;
      await receiving(entity, async (got, send) => {
        await send();
        await send();
        const expected = { ...structuredClone(entity), resources: { self: { ref: REF_A } } };
        assert.deepStrictEqual(got[0].webhook.entity, expected);
        assert.notEqual(got[0].webhook, got[1].webhook);
        assert.notEqual(got[0].webhook.entity, got[1].webhook.entity);
        assert.notEqual(got[0].community, got[1].community);
      });
    }),
    { numRuns: 40 },
  );
});

Deno.test("a change a consumer makes to its copy reaches neither the cache nor the next postback", async () => {
  await receiving({ tags: ["a"] }, async (got, send) => {
    await send();
    (got[0].webhook.entity.tags as string[]).push("changed");
    got[0].community.name = "changed";
    await send();
    assert.deepEqual(got[1].webhook.entity.tags, ["a"]);
    assert.notEqual(got[1].community.name, "changed");
  });
});

Deno.test("an own __proto__, Dates and cycles in an entity are copied as structuredClone copies them", async () => {
  const cyclic: Record<string, unknown> = { name: "c" };
  cyclic.self = cyclic;
  const entity = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
  entity.at = new Date(5);
  entity.cyclic = cyclic;
  let deep: unknown = 1;
  for (let i = 0; i < 100; i++) deep = { deep };
  entity.deep = deep;
  await receiving(entity, async (got, send) => {
    await send();
    await send();
    const copied = got[1].webhook.entity as Record<string, unknown>;
    assert.ok(Object.hasOwn(copied, "__proto__"));
    assert.equal(Object.getPrototypeOf(copied), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.ok(copied.at instanceof Date && copied.at.getTime() === 5);
    const c = copied.cyclic as Record<string, unknown>;
    assert.equal(c.self, c);
    assert.deepStrictEqual(copied.deep, deep);
  });
});
