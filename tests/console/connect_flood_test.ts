// Starting a community's OAuth connect as a way to fill the console's KV: each `GET /communities/{id}/connect` stores
// a pending authorization (its PKCE verifier and state) for ten minutes, and the browser's cookie names only its
// latest four, so a client that loops on the link leaves one entry per request that nobody can ever complete. Sign-in
// starts the same kind of entry and is limited per client address; connecting must be too.

import assert from "node:assert/strict";
import { NO_RATE_LIMITS, signIn, startConsole } from "./_helpers.ts";

Deno.test("a signed-in client looping on a community's Connect link is answered 429 past the sign-in limit", async () => {
  const t = await startConsole({ rateLimits: { ...NO_RATE_LIMITS, signin: { limit: 10, windowMs: 60_000 } } });
  try {
    const client = await signIn(t.origin); // two of the ten: /auth/login and /auth/callback
    const pending = async () => {
      let n = 0;
      for await (const _ of t.kv.list({ prefix: ["console_oauth_state"] })) n++;
      return n;
    };
    const before = await pending();
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 50; i++) {
      const res = await client.fetch("/communities/sandbox-tenant/connect");
      await res.body?.cancel();
      statuses.push(res.status);
      retryAfter ??= res.headers.get("retry-after");
    }
    const stored = (await pending()) - before;
    assert.ok(stored <= 8, `50 connect starts stored ${stored} pending authorizations`);
    assert.deepEqual(statuses.slice(0, 8), Array(8).fill(302));
    assert.deepEqual(statuses.slice(8), Array(42).fill(429));
    assert.ok(Number(retryAfter) >= 1);
  } finally {
    await t.close();
  }
});
