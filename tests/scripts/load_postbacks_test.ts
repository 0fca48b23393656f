// The load test's postbacks, signed ahead of a run: each valid, each header
// and number sent once, and a run that outlasts what was signed ahead still
// sending valid ones.

import assert from "node:assert/strict";
import { loadFixture, signedRequests } from "../../scripts/load_postbacks.ts";
import { verifyJiveExtn } from "../../webhooks/mod.ts";

/** Runs `fn` with `Date.now` reading a clock it moves itself (`clock.now`), the real one restored after. */
function withClock(fn: (clock: { now: number }) => void): void {
  const realNow = Date.now;
  const clock = { now: realNow() };
  Date.now = () => clock.now;
  try {
    fn(clock);
  } finally {
    Date.now = realNow;
  }
}

/** Takes `count` requests from `setup`, as autocannon does. */
function take(setup: ReturnType<typeof signedRequests>, count: number) {
  return Array.from({ length: count }, () => {
    const context: Record<string, unknown> = {};
    const req = setup({ method: "POST" }, context) as { headers: Record<string, string>; body: string };
    return { seq: context.seq as number, authorization: req.headers.authorization, body: req.body };
  });
}

Deno.test("signed ahead: prepare(n) signs n that verify, and later runs keep what was left and never repeat a header", async () => {
  const fixture = loadFixture();
  let n = 0;
  const setup = signedRequests(fixture, () => n++);
  assert.equal(typeof setup.prepare, "function");
  setup.prepare!(50);
  assert.equal(n, 50, "signed before the run");
  const first = take(setup, 30);
  assert.equal(n, 50, "the run took them from what was signed ahead");
  setup.prepare!(50); // keeps the 20 left, signs 30 more
  assert.equal(n, 80);
  const second = take(setup, 70); // past what was signed: the last 20 are signed as they are sent
  assert.equal(n, 100);
  const all = [...first, ...second];
  assert.deepEqual(all.map((r) => r.seq), Array.from({ length: 100 }, (_, i) => i), "each number once, in order");
  assert.equal(new Set(all.map((r) => r.authorization)).size, 100, "no header sent twice");
  for (const r of all) {
    const verified = await verifyJiveExtn(r.authorization, String(fixture.community.clientSecret));
    assert.equal(verified.ok, true, `load-${r.seq} verifies`);
    assert.match(r.body, new RegExp(`"Load load-${r.seq}"`));
  }
});

Deno.test("signed ahead: what was signed over 30 s before a run is dropped, not sent", () => {
  withClock((clock) => {
    let n = 0;
    const setup = signedRequests(loadFixture(), () => n++);
    setup.prepare!(10);
    clock.now += 31_000;
    setup.prepare!(10);
    assert.equal(n, 20, "the ten stale ones were replaced");
    assert.deepEqual(take(setup, 10).map((r) => r.seq), [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  });
});

Deno.test("signed ahead: a long run slower than one request a millisecond sends no header the receiver finds stale", () => {
  withClock((clock) => {
    let n = 0;
    const setup = signedRequests(loadFixture(), () => n++);
    setup.prepare!(200);
    clock.now += 29_000; // the next run, within 30 s of the signing: what is left is kept
    setup.prepare!(200);
    let last = -1;
    for (let i = 0; i < 200; i++) { // a 100 s run (--seconds allows 120) at two requests a second
      const [r] = take(setup, 1);
      const timestamp = Number(/timestamp=(\d+)/.exec(r.authorization)![1]);
      assert.ok(
        clock.now - timestamp < 300_000,
        `load-${r.seq} sent ${clock.now - timestamp} ms old: the receiver refuses 5 min`,
      );
      assert.ok(timestamp - clock.now <= 30_000, `load-${r.seq} sent ${timestamp - clock.now} ms ahead`);
      assert.ok(r.seq > last, `load-${r.seq} sent after load-${last}`);
      last = r.seq;
      clock.now += 500;
    }
  });
});
