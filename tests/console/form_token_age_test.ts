// One-time form tokens against a POST sent again after their use is forgotten: a taken token's use is kept in KV
// for a day, but a session may live 90 days (SESSION_TTL_HOURS), so the same Register, Send test event, Replay or
// Redeliver sent again a day later (history, a replayed request) would act a second time.

import assert from "node:assert/strict";
import { FORM_TOKEN_REFUSED, FormTokens } from "../../console/lib/form_tokens.ts";
import { formTokenKey } from "../../console/lib/kv_keys.ts";

const HOUR = 3600_000;

/** Runs `fn` with `Date.now` moved by `offsetMs`. */
async function at<T>(offsetMs: number, fn: () => Promise<T>): Promise<T> {
  const now = Date.now;
  Date.now = () => now() + offsetMs;
  try {
    return await fn();
  } finally {
    Date.now = now;
  }
}

Deno.test("a one-time token taken a day ago, its use forgotten, is refused: the POST sent again does not act twice", async () => {
  using kv = await Deno.openKv(":memory:");
  const tokens = new FormTokens(kv);
  const scope = "replay\n01DELIVERY-0";
  // Shown and used 25 hours ago, in a session that still lives.
  const token = await at(-25 * HOUR, async () => {
    const token = await tokens.issue("session-id", scope);
    assert.equal(await tokens.take(token, "session-id", scope), null, "the first submission acts");
    await tokens.led(token, "/deliveries?notice=replayed");
    return token;
  });
  // KV drops the use after its day (expireIn); dropped here at once, as the store would have.
  await kv.delete(formTokenKey(token));
  await assert.rejects(tokens.take(token, "session-id", scope), { name: "TypeError", message: FORM_TOKEN_REFUSED });
});

Deno.test("a one-time token is taken once while its use is kept, and not at all past half a day", async () => {
  using kv = await Deno.openKv(":memory:");
  const tokens = new FormTokens(kv);
  const fresh = await tokens.issue("s");
  assert.equal(fresh.length, 65);
  assert.equal(await tokens.take(fresh, "s"), null);
  assert.deepEqual(await tokens.take(fresh, "s"), {}, "the second submission finds the first in progress");
  const old = await at(-11 * HOUR, () => tokens.issue("s"));
  assert.equal(await tokens.take(old, "s"), null, "a form left open 11 hours still acts once");
  const older = await at(-13 * HOUR, () => tokens.issue("s"));
  await assert.rejects(tokens.take(older, "s"), { message: FORM_TOKEN_REFUSED });
  await assert.rejects(tokens.take(fresh, "other session"), { message: FORM_TOKEN_REFUSED });
  await assert.rejects(tokens.take(fresh.slice(0, 22) + "A".repeat(43), "s"), { message: FORM_TOKEN_REFUSED });
});
