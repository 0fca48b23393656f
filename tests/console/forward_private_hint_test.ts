// A newcomer's first destination is an app on their own machine (127.0.0.1), and the console started with no
// configuration refuses it: the Forward to page must say so before the add, and the refusal must say what to do (the
// setting is read when the console starts), with the CLI's `listen` as the other way. A console that allows the
// private network says nothing of it.

import assert from "node:assert/strict";
import { csrfOf, parse, withHook } from "./_helpers.ts";

Deno.test("Forward to says before the add that an app on this machine needs ALLOW_PRIVATE_NETWORK=1 at start", async () => {
  await withHook(async (_t, hook, client) => {
    const path = `/webhooks/${hook.id}/forward`;
    const before = await client.text(path, 200);
    const page = parse(before);
    try {
      const hint = page.document.querySelector("#forward-add #forward-private")?.textContent ?? "";
      assert.match(hint, /127\.0\.0\.1/);
      assert.match(hint, /ALLOW_PRIVATE_NETWORK=1/);
      assert.match(hint, /start/);
      assert.match(hint, /listen --forward-to/);
      // Without --kv the CLI reads ./webhooks.kv, where no postback of this console ever arrives.
      assert.match(hint, /listen --forward-to \S+ --kv \.data\/console\.kv/);
      assert.match(hint, /KV_PATH/);
    } finally {
      page.close();
    }

    const res = await client.post(path, { _csrf: csrfOf(before), url: "http://127.0.0.1:3000/hooks" });
    assert.equal(res.status, 400);
    const html = await res.text();
    assert.match(html, /No destination was added: .*loopback.*ALLOW_PRIVATE_NETWORK=1 allows it/);
    assert.match(html, /ALLOW_PRIVATE_NETWORK=1 allows it \(set when the console starts: start it again with it\)/);
  }, { allowPrivateNetwork: false });
});

Deno.test("Forward to says nothing of ALLOW_PRIVATE_NETWORK when the console allows the private network", async () => {
  await withHook(async (_t, hook, client) => {
    const html = await client.text(`/webhooks/${hook.id}/forward`, 200);
    assert.doesNotMatch(html, /ALLOW_PRIVATE_NETWORK/);
  }, { allowPrivateNetwork: true });
});
