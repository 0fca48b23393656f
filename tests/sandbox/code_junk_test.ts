// A sandbox authorization code's record, as KV keeps it, edited by hand (or left by a bad write) into junk: a
// number, a string, a list, an object of another shape, a used mark whose grant is no text. Exchanging the code is
// refused as an OAuth error (400 invalid_grant), never a 500; a code as made is still exchanged.

import assert from "node:assert/strict";
import { hash } from "node:crypto";
import { SANDBOX_KV_PREFIX } from "../../sandbox/mod.ts";
import { approve, COMMUNITY, type Served, withServed } from "./_served.ts";

const JUNK: unknown[] = [5, "x", true, [], {}, { used: true }, { used: true, grantId: 5 }, { clientId: 5 }];

/** Exchanges `code` (with `verifier`) at the token endpoint as the community's client. */
function exchange(served: Served, code: string, verifier: string): Promise<Response> {
  return fetch(`${served.base}/oauth2/token`, {
    method: "POST",
    headers: { Authorization: `Basic ${btoa(`${COMMUNITY.clientId}:${COMMUNITY.clientSecret}`)}` },
    body: new URLSearchParams([
      ["grant_type", "authorization_code"],
      ["code", code],
      ["redirect_uri", served.communityRedirect],
      ["code_verifier", verifier],
    ]),
  });
}

Deno.test("sandbox: an authorization code's record edited into junk is refused as an OAuth error, not a 500", async () => {
  await withServed(async (served) => {
    for (const value of JUNK) {
      const { code, verifier } = await approve(served);
      const key = [...SANDBOX_KV_PREFIX, "code", hash("sha256", code, "hex")];
      assert.ok((await served.kv.get(key)).value, "the code's record is kept where this test edits it");
      await served.kv.set(key, value);
      const res = await exchange(served, code, verifier);
      const body = await res.text();
      assert.equal(res.status, 400, `the code over ${JSON.stringify(value)}: ${body.slice(0, 200)}`);
      assert.equal(JSON.parse(body).error, "invalid_grant", `the code over ${JSON.stringify(value)}`);
    }
    const { code, verifier } = await approve(served);
    const res = await exchange(served, code, verifier);
    await res.body?.cancel();
    assert.equal(res.status, 200, "a code as made is still exchanged");
  });
});
