// "Forward to" Add in one tab and Unregister of the hook in another, at once: the add read that the hook is there, the
// unregister removed the record and forgot its destinations, then the add stored its destination. Nothing may be left
// that names the gone hook, its signing secret on no page, and the add's answer must not say it was added.

import assert from "node:assert/strict";
import { createRelay } from "../../webhooks/mod.ts";
import { csrfOf, pageError, withHook } from "./_helpers.ts";

/** A `:memory:` KV whose next read of hook records by `getMany` (the relay's check of an add's hooks) is held. */
async function kvHoldingHookCheck() {
  const kv = await Deno.openKv(":memory:");
  const read = Promise.withResolvers<void>();
  const released = Promise.withResolvers<void>();
  let armed = false;
  const getMany = kv.getMany.bind(kv);
  kv.getMany = (async (keys: Deno.KvKey[], options?: { consistency?: Deno.KvConsistencyLevel }) => {
    const found = await getMany(keys, options);
    if (armed && keys.length > 0 && keys.every((key) => key[0] === "webhook")) {
      armed = false;
      read.resolve();
      await released.promise;
    }
    return found;
  }) as Deno.Kv["getMany"];
  return {
    kv,
    arm: () => void (armed = true),
    read: read.promise,
    release: () => released.resolve(),
  };
}

Deno.test("Forward to: an Add that checked the hook before an Unregister at once leaves no destination of the gone hook", async () => {
  const held = await kvHoldingHookCheck();
  await withHook(async (t, hook, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${hook.id}`, 200));
    held.arm();
    const add = client.post(`/webhooks/${hook.id}/forward`, { _csrf: csrf, url: "https://app.example/in" });
    await held.read;
    const unregistered = await client.post(`/webhooks/${hook.id}/unregister`, { _csrf: csrf, confirm: "yes" });
    await unregistered.body?.cancel();
    assert.equal(unregistered.headers.get("location"), "/webhooks?notice=unregistered");
    held.release();
    const res = await client.follow(await add);
    const body = await res.text();
    const relay = createRelay(t.kv);
    try {
      const left = (await relay.destinations.list()).filter((d) => d.hookIds?.includes(hook.id));
      assert.deepEqual(left.map((d) => d.url), [], "a destination of the gone hook is left, its secret on no page");
    } finally {
      await relay.close();
    }
    assert.equal(res.status, 404, pageError(body) ?? body.slice(0, 300));
    assert.match(pageError(body) ?? "", /No destination was added: the webhook was unregistered/);
    assert.doesNotMatch(body, /whsec_/);
  }, { kv: held.kv });
});
