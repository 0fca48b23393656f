// Forward to's Add sent twice (a double click with scripts off, where no script holds the second submission back):
// the browser shows the second answer only. That answer must lead to the secret still waiting for this session,
// not say "already receives ... its secret was shown when it was added" when it never was. Another session sending
// the same URL is still refused, and shown no secret.

import assert from "node:assert/strict";
import { csrfOf, signIn, withSignedInHook } from "./_helpers.ts";
import { secretOf } from "./_forward_secret.ts";

Deno.test("Forward to's Add sent twice by one session: the second answer leads to the secret the first kept", async () => {
  await withSignedInHook({}, async ({ t, client, hookId }) => {
    const path = `/webhooks/${hookId}/forward`;
    const csrf = csrfOf(await client.text(path, 200));
    const form = { _csrf: csrf, url: "https://app.example/in" };
    const first = await client.post(path, form);
    await first.body?.cancel();
    assert.equal(first.status, 303);
    // The second submission's answer is the one the browser shows; the first's redirect is never followed.
    const second = await client.post(path, form);
    const body = await second.text();
    assert.doesNotMatch(body, /whsec_/, "the POST's answer holds the secret");
    assert.equal(second.status, 303, `the second Add answered ${second.status}: ${body.slice(0, 400)}`);
    const location = second.headers.get("location") ?? "";
    const secret = secretOf(await client.text(location, 200));
    assert.match(secret ?? "", /^whsec_[A-Za-z0-9+/]+=*$/);

    // Another session adding the same URL is refused as before, and sees no secret.
    const other = await signIn(t.origin);
    const theirs = await other.post(path, {
      _csrf: csrfOf(await other.text(path, 200)),
      url: "https://app.example/in",
    });
    assert.equal(theirs.status, 409);
    assert.doesNotMatch(await theirs.text(), /whsec_/);
  });
});
