// How a token request authenticates its client: RFC 6749 2.3 says a client
// MUST NOT use more than one authentication method in a request, so Basic
// credentials with a client_secret in the form are refused (invalid_request),
// whichever secret the form holds, instead of the form's being ignored. A
// client_id in the form beside Basic (RFC 6749 allows it; Module A sends it)
// is fine when it is Basic's id.

import assert from "node:assert/strict";
import { signIn, tokenRequest, withSandbox } from "./_mounted.ts";

Deno.test("sandbox: a token request with Basic credentials and a client_secret in the form is refused invalid_request, and grants nothing", async () => {
  await withSandbox(async (env) => {
    const community = await env.sandbox.communityFor(env.origin);
    const basic = { Authorization: `Basic ${btoa(`${community.clientId}:${community.clientSecret}`)}` };
    const tokens = await signIn(env);
    const refresh = { grant_type: "refresh_token", refresh_token: tokens.refresh_token! };

    for (const secret of [community.clientSecret, "wrong"]) {
      for (
        const form of [{ ...refresh, client_secret: secret }, {
          ...refresh,
          client_id: community.clientId,
          client_secret: secret,
        }]
      ) {
        const twice = await tokenRequest(env, form, basic);
        assert.equal(twice.status, 400, Object.keys(form).join());
        const body = await twice.json();
        assert.equal(body.error, "invalid_request");
        assert.match(body.error_description, /one client authentication method/);
        assert.ok(!JSON.stringify(body).includes(community.clientSecret));
      }
    }

    // Refused before the refresh token was looked at: it still works, with Basic and Basic's id in the form.
    const renewed = await tokenRequest(env, { ...refresh, client_id: community.clientId }, basic);
    assert.equal(renewed.status, 200);
    const pair = await renewed.json();
    // And client_secret_post alone still works.
    const post = await tokenRequest(env, {
      grant_type: "refresh_token",
      refresh_token: pair.refresh_token,
      client_id: community.clientId,
      client_secret: community.clientSecret,
    });
    assert.equal(post.status, 200);
    await post.body?.cancel();
  });
});

Deno.test("sandbox: an empty client_secret beside Basic counts as not sent (RFC 6749 3.1), and a client_id unlike Basic's is refused", async () => {
  await withSandbox(async (env) => {
    const community = await env.sandbox.communityFor(env.origin);
    const basic = { Authorization: `Basic ${btoa(`${community.clientId}:${community.clientSecret}`)}` };
    const tokens = await signIn(env);
    const refresh = { grant_type: "refresh_token", refresh_token: tokens.refresh_token! };

    const other = await tokenRequest(env, { ...refresh, client_id: "sandbox-console" }, basic);
    assert.equal(other.status, 400);
    assert.equal((await other.json()).error, "invalid_request");

    const empty = await tokenRequest(env, { ...refresh, client_secret: "" }, basic);
    assert.equal(empty.status, 200);
    await empty.body?.cancel();
  });
});
