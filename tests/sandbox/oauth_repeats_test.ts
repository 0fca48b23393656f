// RFC 6749 (3.1, 3.2): an OAuth request's parameters are sent once each, and
// one that repeats a parameter is refused (`invalid_request`), as OAuth
// servers do, instead of the sandbox picking one of the values: the first of
// a query, the last of a form, whichever a proxy or the client meant.

import assert from "node:assert/strict";
import { approve, COMMUNITY, pkcePair, type Served, withServed } from "./_served.ts";

async function authorizeFields(served: Served): Promise<[string, string][]> {
  return [
    ["response_type", "code"],
    ["client_id", COMMUNITY.clientId],
    ["redirect_uri", served.communityRedirect],
    ["code_challenge", (await pkcePair()).challenge],
    ["code_challenge_method", "S256"],
    ["state", "s-1"],
  ];
}

Deno.test("sandbox: an authorization request that repeats a parameter gets the 400 page naming it, no consent and no code", async () => {
  await withServed(async (served) => {
    const fields = await authorizeFields(served);
    for (const repeated of [["redirect_uri", served.communityRedirect], ["state", "s-2"], ["client_id", "other"]]) {
      const query = new URLSearchParams([...fields, repeated as [string, string]]);
      const page = await fetch(`${served.base}/oauth2/authorize?${query}`);
      assert.equal(page.status, 400, repeated[0]);
      assert.match(await page.text(), new RegExp(`id="error">${repeated[0]} is repeated`), repeated[0]);

      const form = new URLSearchParams([...fields, ["decision", "approve"], repeated as [string, string]]);
      const post = await fetch(`${served.base}/oauth2/authorize`, {
        method: "POST",
        headers: { Origin: served.origin },
        body: form,
        redirect: "manual",
      });
      assert.equal(post.status, 400, repeated[0]);
      assert.equal(post.headers.get("location"), null);
      assert.match(await post.text(), new RegExp(`id="error">${repeated[0]} is repeated`), repeated[0]);
    }
  });
});

Deno.test("sandbox: a token request that repeats a parameter is refused invalid_request naming it, and grants nothing", async () => {
  await withServed(async (served) => {
    const basic = { Authorization: `Basic ${btoa(`${COMMUNITY.clientId}:${COMMUNITY.clientSecret}`)}` };
    const token = (pairs: [string, string][]) =>
      fetch(`${served.base}/oauth2/token`, { method: "POST", headers: basic, body: new URLSearchParams(pairs) });
    const expectRepeated = async (res: Response, name: string) => {
      assert.equal(res.status, 400, name);
      assert.deepEqual(await res.json(), {
        error: "invalid_request",
        error_description: `${name} is repeated: each parameter may be sent once`,
      });
    };

    const { code, verifier } = await approve(served);
    const exchange: [string, string][] = [
      ["grant_type", "authorization_code"],
      ["code", code],
      ["redirect_uri", served.communityRedirect],
      ["code_verifier", verifier],
    ];
    await expectRepeated(await token([...exchange, ["code_verifier", "v".repeat(43)]]), "code_verifier");
    await expectRepeated(await token([["code", "other"], ...exchange]), "code");
    // Refused before the code was looked at: it still works once.
    const granted = await token(exchange);
    assert.equal(granted.status, 200);
    const { refresh_token } = await granted.json();

    await expectRepeated(
      await token([["grant_type", "refresh_token"], ["refresh_token", "stale"], ["refresh_token", refresh_token]]),
      "refresh_token",
    );
    await expectRepeated(
      await token([["grant_type", "refresh_token"], ["grant_type", "refresh_token"], ["refresh_token", refresh_token]]),
      "grant_type",
    );
    const renewed = await token([["grant_type", "refresh_token"], ["refresh_token", refresh_token]]);
    assert.equal(renewed.status, 200, "the refused requests left the refresh token unused");
    await renewed.body?.cancel();
  });
});
