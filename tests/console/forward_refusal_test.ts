// A refused "Forward to" says once that no destination was added and then what is wrong with the URL: the relay's
// own framing of its refusal ("Cannot add destination: ...") read, after the console's, "No destination was added:
// Cannot add destination: 'url' must be ...", the same thing twice before the reason.

import assert from "node:assert/strict";
import { csrfOf, parse, withHook } from "./_helpers.ts";
import { createRelay } from "../../webhooks/mod.ts";

Deno.test("Forward to: a refused URL is named once, after one 'No destination was added'", async () => {
  await withHook(async (t, hook, client) => {
    const path = `/webhooks/${hook.id}/forward`;
    const csrf = csrfOf(await client.text(path, 200));
    const cases: [string, RegExp][] = [
      ["ftp://files.example/x", /^No destination was added: 'url' must be an absolute http\(s\) URL, got "ftp:/],
      [`https://app.example/${"x".repeat(9000)}`, /^No destination was added: 'url' must be at most \d+ characters/],
      ["https://user:pw@app.example/in", /^No destination was added: 'url' must not carry a user name or password/],
    ];
    for (const [url, expected] of cases) {
      const res = await client.post(path, { _csrf: csrf, url });
      const page = parse(await res.text());
      try {
        assert.equal(res.status, 400, `${url}: ${res.status} ${page.document.querySelector("main")?.textContent}`);
        const said = page.document.querySelector("#page-error")?.textContent ?? "";
        assert.match(said, expected, said);
        assert.doesNotMatch(said, /Cannot add destination/i, said);
        assert.equal(said.match(/destination/gi)?.length, 1, said);
        assert.ok(!said.includes("pw@"), said); // the password given is not said back
      } finally {
        page.close();
      }
    }
    assert.deepEqual(await createRelay(t.kv).destinations.list(), []);
  });
});
