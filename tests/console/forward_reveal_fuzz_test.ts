// `?reveal=` is a query string anyone can put in an address: fuzzed, it never shows a secret, never takes the
// session's waiting reveal, and never answers other than 200 with the page. The real token, once, still shows it.

import assert from "node:assert/strict";
import fc from "fast-check";
import { csrfOf, withSignedInHook } from "./_helpers.ts";

Deno.test("Forward to: any ?reveal= value but the token shows no secret and leaves the waiting one in place", async () => {
  await withSignedInHook({}, async ({ client, hookId }) => {
    const path = `/webhooks/${hookId}/forward`;
    const res = await client.post(path, { _csrf: csrfOf(await client.text(path, 200)), url: "https://app.example/in" });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    const location = res.headers.get("location") ?? "";
    const token = new URL(location, "http://x").searchParams.get("reveal") ?? "";
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);

    const near = fc.integer({ min: 0, max: 42 }).chain((i) =>
      fc.constantFrom(...["A", "-", "_", "0", "z"]).map((ch) => token.slice(0, i) + ch + token.slice(i + 1))
    ).filter((t) => t !== token);
    const value = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: "binary", maxLength: 60 }),
      near,
      fc.constant(token + "="),
      fc.constant(token.toLowerCase()).filter((t) => t !== token),
      fc.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    );
    await fc.assert(
      fc.asyncProperty(value, async (reveal) => {
        const page = await client.fetch(`${path}?notice=added&reveal=${encodeURIComponent(reveal)}`);
        const html = await page.text();
        assert.equal(page.status, 200, html.slice(0, 300));
        assert.doesNotMatch(html, /whsec_/);
      }),
      { numRuns: 150 },
    );

    // None of those took it: the real token shows the secret, once.
    const shown = await client.fetch(location);
    assert.match(await shown.text(), /whsec_[A-Za-z0-9+/]+=*/);
    assert.doesNotMatch(await (await client.fetch(location)).text(), /whsec_/);
  });
});
