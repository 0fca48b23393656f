// A replayed authorization code revokes its grant by a KV marker kept, by KV's real-time `expireIn`, as long as a
// token of the grant may live. That length was worked out from the settings of the sandbox the replay reaches: one
// restarted on the same KV with a shorter `refreshTokenTtlSeconds` kept the marker two minutes, while the refresh
// token issued before the restart lives 30 days, and works again once the marker is gone. The marker must be kept
// as long as the tokens its grant was given, whatever the sandbox that revokes them is told.

import assert from "node:assert/strict";
import { Hono } from "hono";
import * as oauth from "oauth4webapi";
import { createSandbox } from "../../sandbox/mod.ts";
import { authorize, insecure, party, withSandbox } from "./_mounted.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

Deno.test("a code replayed to a sandbox restarted with shorter token lifetimes revokes its grant for as long as its tokens live", async () => {
  const kv = await Deno.openKv(":memory:");
  const revokedFor: number[] = [];
  const set = kv.set.bind(kv);
  kv.set = (key, value, options) => {
    if (key[1] === "revoked_grant") revokedFor.push(options?.expireIn ?? Infinity);
    return set(key, value, options);
  };
  try {
    await withSandbox(async (env) => {
      // Before the restart (30-day refresh tokens, the default): a sign-in.
      const p = await party(env, "community");
      const flow = await authorize(env, p);
      const params = oauth.validateAuthResponse(p.as, p.client, flow.callback, flow.state);
      const first = await oauth.processAuthorizationCodeResponse(
        p.as,
        p.client,
        await oauth.authorizationCodeGrantRequest(
          p.as,
          p.client,
          p.auth,
          params,
          p.redirectUri,
          flow.verifier,
          insecure,
        ),
      );
      assert.ok(first.refresh_token);
      const issuedBy = Date.now(); // its refresh token lives in KV until 30 days after its commit, at most this

      // After it, on the same KV: refresh tokens of two minutes. The code comes back.
      const restarted = createSandbox({
        kv,
        now: () => env.clock.now,
        tokenTtlSeconds: 60,
        refreshTokenTtlSeconds: 120,
      });
      const app = new Hono().route("/sandbox", restarted.app);
      const replayedFrom = Date.now(); // the marker lives in KV until its expireIn after its write, at least this
      const replay = await app.fetch(
        new Request(`${env.base}/oauth2/token`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            code: params.get("code")!,
            redirect_uri: p.redirectUri,
            code_verifier: flow.verifier,
            client_id: p.client.client_id,
            client_secret: p.clientSecret,
          }),
        }),
      );
      assert.equal(replay.status, 400);
      assert.equal((await replay.json()).error, "invalid_grant");
      assert.equal(revokedFor.length, 1, "the grant is revoked");
      assert.ok(
        replayedFrom + revokedFor[0] >= issuedBy + 30 * DAY_MS,
        `the revoked grant's marker is kept ${revokedFor[0]} ms, less than the 30 days of its refresh token`,
      );
    }, { kv });
  } finally {
    kv.close();
  }
});
