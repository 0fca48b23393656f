// A rate-limit counter edited by hand (or left by a bad write) into junk: NaN, a negative or fractional count,
// Infinity, a string, an object, a list. The limit still counts from it as from no count: it lets `limit` requests
// through and refuses the next (neither refusing from the first nor never refusing), and a new window starts over.

import assert from "node:assert/strict";
import fc from "fast-check";
import { RateLimiter } from "../../console/lib/rate_limit.ts";

const RULE = { limit: 3, windowMs: 60_000 };
const JUNK: unknown[] = [
  NaN,
  -1e9,
  -1,
  1.5,
  Infinity,
  -Infinity,
  "x",
  "2",
  {},
  [],
  true,
  // A whole count of zero or more is a count, no junk.
  ...fc.sample(fc.anything(), { numRuns: 30, seed: 65 }).filter((v) =>
    v != null && !(typeof v === "number" && Number.isSafeInteger(v) && v >= 0)
  ),
];

Deno.test("a rate-limit counter edited into junk counts as none: `limit` requests through, then refused", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    let now = 1_000 * RULE.windowMs;
    for (const [i, value] of JUNK.entries()) {
      const shown = typeof value === "number" ? String(value) : JSON.stringify(value)?.slice(0, 80);
      const limiter = new RateLimiter(kv, { signin: RULE }, () => now);
      const key = `client-${i}`;
      await kv.set(["console_rate", "signin", key, Math.floor(now / RULE.windowMs)], value);
      const verdicts = [];
      for (let n = 0; n <= RULE.limit; n++) verdicts.push((await limiter.hit("signin", key)).ok);
      assert.deepEqual(verdicts, [true, true, true, false], `over the counter ${shown}`);
      const status = await limiter.status("signin", key);
      assert.equal(status?.remaining, 0, `status over the counter ${shown}`);
      now += RULE.windowMs;
      assert.ok((await limiter.hit("signin", key)).ok, `the next window over the counter ${shown}`);
    }
  } finally {
    kv.close();
  }
});
