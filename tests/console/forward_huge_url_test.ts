// A "Forward to" URL far past the relay's 8,192 characters, yet within the form's 256 KiB (a paste gone wrong, a
// hostile client): refused like one just past the limit, naming the limit, and nothing is kept for it.

import assert from "node:assert/strict";
import { csrfOf, parse, withHook } from "./_helpers.ts";
import { createRelay } from "../../webhooks/mod.ts";

Deno.test("Forward to: a URL of 100,000 characters is refused 400 naming the limit, not 500, and nothing is kept", async () => {
  await withHook(async (t, hook, client) => {
    const path = `/webhooks/${hook.id}/forward`;
    const csrf = csrfOf(await client.text(path, 200));
    const before = await Array.fromAsync(t.kv.list({ prefix: [] }));
    for (const url of [`https://app.example/${"x".repeat(100_000)}`, `https://app.example/${"é".repeat(40_000)}`]) {
      const res = await client.post(path, { _csrf: csrf, url });
      const page = parse(await res.text());
      try {
        const said = page.document.querySelector("#page-error")?.textContent ?? "";
        assert.equal(res.status, 400, `${url.length} characters: ${res.status} ${said}`);
        assert.match(said, /^No destination was added: 'url' must be at most 8192 characters/, said);
        assert.doesNotMatch(said, /Value too large|Try again/, said);
      } finally {
        page.close();
      }
    }
    assert.deepEqual(await createRelay(t.kv).destinations.list(), []);
    const after = await Array.fromAsync(t.kv.list({ prefix: [] }));
    assert.deepEqual(after.map((e) => e.key), before.map((e) => e.key), "nothing is kept for the refused adds");
  });
});
