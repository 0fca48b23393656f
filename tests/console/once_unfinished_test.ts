// A one-time button (Send test event, Replay, Redeliver) whose first
// submission never ends: the console that took it was killed mid-way (two
// consoles share one KV), leaving its token "in progress". The same form sent
// again waited 15 s and said "being sent already: wait a moment", and every
// later resend waited 15 s again, for the token's day. After the one wait, the
// answer now says the first did not finish (it may still be under way, or its
// console stopped) and to send it again from the page, which carries a fresh
// button; later resends get that answer at once.

import assert from "node:assert/strict";
import { formTokenKey } from "../../console/lib/kv_keys.ts";
import { testEventFields, withHook } from "./_helpers.ts";

Deno.test("Send test event sent again after its first submission's console died: one wait, then at once", async () => {
  await withHook(async (t, hook, client) => {
    const form = await testEventFields(client, hook.id);
    // What a console killed mid-submission leaves: the token taken, in progress, never ended.
    await t.kv.set(formTokenKey(String(form.formToken)), {}, { expireIn: 86_400_000 });
    const first = await client.post(`/webhooks/${hook.id}/test`, form);
    const page = await first.text();
    assert.equal(first.status, 409);
    assert.match(page, /did not finish/);
    assert.match(page, /send it again from this page/);
    const started = Date.now();
    const again = await client.post(`/webhooks/${hook.id}/test`, form);
    assert.equal(again.status, 409);
    assert.match(await again.text(), /did not finish/);
    assert.ok(Date.now() - started < 5_000, "the resend did not wait another 15 s");
    // The page's own button is a fresh one: it sends the test event.
    const fresh = await testEventFields(client, hook.id);
    assert.notEqual(fresh.formToken, form.formToken);
    const sent = await client.post(`/webhooks/${hook.id}/test`, fresh);
    await sent.body?.cancel();
    assert.equal(sent.status, 303);
  });
});
