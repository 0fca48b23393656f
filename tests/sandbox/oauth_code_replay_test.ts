// A replayed authorization code revokes every token of its grant (RFC 6749
// 4.1.2), through two KV markers: the used code (what tells a second use from
// an unknown code) and the revoked grant. Both expire by KV's real-time
// `expireIn`, which the sandbox's clock cannot move, so the test reads the
// `expireIn` of each write: no token of a grant may outlive the markers that
// revoke it, whatever `tokenTtlSeconds` is (here 40 days, over the 30 of a
// refresh token), and a refresh, which makes new tokens of the grant, must
// keep the used code's marker as long as them.

import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { authorize, bearer, insecure, party, refreshGrant, withSandbox } from "./_mounted.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

interface Written {
  /** The key's kind: its second part ("access", "refresh", "code", "revoked_grant", ...). */
  kind: string;
  value: unknown;
  expireIn: number;
  /** Which write (a commit counts once): later writes have larger numbers. */
  seq: number;
}

/** A real KV that records every set it commits, with its `expireIn`. */
function recordingKv(raw: Deno.Kv): { kv: Deno.Kv; written: Written[] } {
  const written: Written[] = [];
  let seq = 0;
  const record = (key: Deno.KvKey, value: unknown, options?: { expireIn?: number }, at = ++seq) =>
    written.push({ kind: String(key[1]), value, expireIn: options?.expireIn ?? Infinity, seq: at });
  const kv = new Proxy(raw, {
    get(target, prop) {
      if (prop === "set") {
        return (key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) => {
          record(key, value, options);
          return target.set(key, value, options);
        };
      }
      if (prop !== "atomic") {
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        const op = target.atomic();
        const sets: [Deno.KvKey, unknown, { expireIn?: number } | undefined][] = [];
        const set = op.set.bind(op);
        op.set = (key, value, options) => {
          sets.push([key, value, options]);
          return set(key, value, options);
        };
        const commit = op.commit.bind(op);
        op.commit = async () => {
          const result = await commit();
          if (result.ok) {
            const at = ++seq;
            for (const [key, value, options] of sets) record(key, value, options, at);
          }
          return result;
        };
        return op;
      };
    },
  });
  return { kv, written };
}

Deno.test("sandbox: under a 40-day token TTL, no token of a grant outlives the markers that revoke it when its code is replayed", async () => {
  const raw = await Deno.openKv(":memory:");
  const { kv, written } = recordingKv(raw);
  try {
    await withSandbox(async (env) => {
      const p = await party(env, "community");
      const flow = await authorize(env, p);
      const params = oauth.validateAuthResponse(p.as, p.client, flow.callback, flow.state);
      const exchange = () =>
        oauth.authorizationCodeGrantRequest(p.as, p.client, p.auth, params, p.redirectUri, flow.verifier, insecure);
      const first = await oauth.processAuthorizationCodeResponse(p.as, p.client, await exchange());
      assert.equal(first.expires_in, 40 * DAY_MS / 1000);

      // Day 29: a refresh makes new tokens of the same grant, good until day 59 (refresh) and 69 (access).
      env.clock.now += 29 * DAY_MS;
      const renewed = await oauth.processRefreshTokenResponse(
        p.as,
        p.client,
        await refreshGrant(p, first.refresh_token!),
      );

      const tokens = written.filter((w) => w.kind === "access" || w.kind === "refresh");
      const usedMarks = written.filter((w) => w.kind === "code" && (w.value as { used?: boolean }).used === true);
      assert.equal(tokens.length, 4, "two access and two refresh tokens were written");
      for (const token of tokens) {
        assert.ok(
          usedMarks.some((m) => m.seq >= token.seq && m.expireIn >= token.expireIn),
          `the used code's marker (${
            usedMarks.map((m) => m.expireIn)
          } ms) is kept shorter than the ${token.kind} token of its grant (${token.expireIn} ms), or before it`,
        );
      }

      // Day 35: the code comes back; every token of its grant stops working, the renewed ones included.
      env.clock.now += 6 * DAY_MS;
      const replay = await exchange();
      assert.equal(replay.status, 400);
      assert.equal((await replay.json()).error, "invalid_grant");
      const revoked = written.filter((w) => w.kind === "revoked_grant");
      assert.equal(revoked.length, 1);
      for (const token of tokens) {
        assert.ok(
          revoked[0].expireIn >= token.expireIn,
          `the revoked grant's marker (${
            revoked[0].expireIn
          } ms) is kept shorter than the ${token.kind} token of it (${token.expireIn} ms)`,
        );
      }
      const list = await fetch(`${env.base}/api/core/v3/webhooks`, bearer(renewed.access_token));
      assert.equal(list.status, 401);
      await list.body?.cancel();
      const refreshed = await refreshGrant(p, renewed.refresh_token!);
      assert.equal(refreshed.status, 400);
      assert.equal((await refreshed.json()).error, "invalid_grant");
    }, { kv, tokenTtlSeconds: 40 * DAY_MS / 1000 });
  } finally {
    raw.close();
  }
});
