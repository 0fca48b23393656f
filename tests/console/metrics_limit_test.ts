// GET /metrics and its rate limit: wrong bearer tokens are counted per client address (20 a minute by default), past
// which the console answers 429 with Retry-After; the right token is never counted nor refused, so a Prometheus scrape
// every second keeps working. Without METRICS_TOKEN it stays 404, counting nothing (API.md "Telemetry"). The tests set
// the limit with a day's window, so that no window ends while they run (the limiter's windows are fixed).

import assert from "node:assert/strict";
import type { RateLimits } from "../../console/app.ts";
import { NO_RATE_LIMITS, startConsole } from "./_helpers.ts";

const TOKEN = "metrics-token-" + crypto.randomUUID();
const WRONG = "wrong-" + crypto.randomUUID();
/** 20 wrong tokens a day per address: the default's count, over a window no test run straddles. */
const RATE_LIMITS = { ...NO_RATE_LIMITS, metrics: { limit: 20, windowMs: 86_400_000 } } as Partial<RateLimits>;

async function get(
  origin: string,
  token?: string,
): Promise<{ status: number; retryAfter: string | null; body: string }> {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const res = await fetch(`${origin}/metrics`, { headers });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.text() };
}

Deno.test("GET /metrics answers 429 with Retry-After past the limit of wrong tokens from one address", async () => {
  const console = await startConsole({ metricsToken: TOKEN, rateLimits: RATE_LIMITS });
  try {
    for (let i = 0; i < 19; i++) assert.equal((await get(console.origin, WRONG)).status, 401, `wrong try ${i + 1}`);
    // No Authorization at all is a failed try too.
    assert.equal((await get(console.origin)).status, 401, "try 20, without a token");
    const limited = await get(console.origin, WRONG);
    assert.equal(limited.status, 429);
    assert.match(limited.retryAfter ?? "", /^[1-9]\d*$/);
    assert.ok(Number(limited.retryAfter) <= 86_400, `Retry-After ${limited.retryAfter} within the window`);
    assert.ok(!limited.body.includes(WRONG) && !limited.body.includes(TOKEN), "no token in the answer");
    // The right token from the same address is not limited.
    const right = await get(console.origin, TOKEN);
    assert.equal(right.status, 200);
    assert.match(right.body, /^# (HELP|TYPE) /m);
  } finally {
    await console.close();
  }
});

Deno.test("GET /metrics with the right token is never limited: 60 scrapes in a row all answer 200", async () => {
  const console = await startConsole({ metricsToken: TOKEN, rateLimits: RATE_LIMITS });
  try {
    for (let i = 0; i < 60; i++) assert.equal((await get(console.origin, TOKEN)).status, 200, `scrape ${i + 1}`);
  } finally {
    await console.close();
  }
});

Deno.test("GET /metrics without METRICS_TOKEN stays 404, however often it is asked", async () => {
  const console = await startConsole({ rateLimits: RATE_LIMITS });
  try {
    for (let i = 0; i < 25; i++) assert.equal((await get(console.origin, WRONG)).status, 404, `try ${i + 1}`);
  } finally {
    await console.close();
  }
});
