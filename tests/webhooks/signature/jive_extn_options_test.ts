// API.md: "`verifyJiveExtn`'s `now` is that time as a number of ms" (where
// createReceiver's `now` is a function). A `now` that is not a finite number
// made every age comparison false, so a header of any age verified; it is
// refused, naming 'now', as are window options of the wrong type.

import assert from "node:assert/strict";
import { signJiveExtn, verifyJiveExtn, type VerifyJiveExtnOptions } from "../../../webhooks/mod.ts";
import { NOW, PARAMS, SECRET } from "./_jive_extn.ts";

const YEAR = 365 * 24 * 60 * 60_000;

Deno.test("verifyJiveExtn() refuses a now that is not a finite number of ms, instead of verifying any age", async () => {
  const old = await signJiveExtn({ ...PARAMS, timestamp: NOW - 10 * YEAR }, SECRET);
  const cases: [unknown, ErrorConstructor, RegExp][] = [
    [NaN, RangeError, /^Cannot verify: 'now' must be a finite number of milliseconds, got NaN$/],
    [Infinity, RangeError, /^Cannot verify: 'now' must be a finite number of milliseconds, got Infinity$/],
    [Date.now, TypeError, /^Cannot verify: 'now' must be a number of milliseconds, got a function$/],
    [String(NOW), TypeError, /^Cannot verify: 'now' must be a number of milliseconds, got "1750000000000"$/],
    [new Date(NOW), TypeError, /^Cannot verify: 'now' must be a number of milliseconds, got an object$/],
  ];
  for (const [now, type, message] of cases) {
    await assert.rejects(
      verifyJiveExtn(old, SECRET, { now } as unknown as VerifyJiveExtnOptions),
      (e: Error) => e instanceof type && message.test(e.message),
      String(now),
    );
  }
  // The same header with a number for now: too old, as it should be.
  assert.equal((await verifyJiveExtn(old, SECRET, { now: NOW })).ok, false);
});

Deno.test("verifyJiveExtn() names a window option of the wrong type as a TypeError, an impossible one as a RangeError", async () => {
  const header = await signJiveExtn({ ...PARAMS, timestamp: NOW }, SECRET);
  const cases: [VerifyJiveExtnOptions, ErrorConstructor, RegExp][] = [
    [{ maxAgeMs: "300000" as unknown as number }, TypeError, /'maxAgeMs' must be a number.*got "300000"/],
    [{ maxFutureMs: true as unknown as number }, TypeError, /'maxFutureMs' must be a number.*got true/],
    [{ maxFutureMs: NaN }, RangeError, /'maxFutureMs' must be a non-negative number, got NaN/],
    [{ maxAgeMs: -1 }, RangeError, /'maxAgeMs' must be a non-negative number, got -1/],
  ];
  for (const [options, type, message] of cases) {
    await assert.rejects(
      verifyJiveExtn(header, SECRET, { now: NOW, ...options }),
      (e: Error) => e instanceof type && message.test(e.message),
      JSON.stringify(options),
    );
  }
  await assert.rejects(
    verifyJiveExtn(header, SECRET, null as unknown as VerifyJiveExtnOptions),
    (e: Error) => e instanceof TypeError && /^Cannot verify: 'options' must be an object, got null$/.test(e.message),
  );
  assert.equal((await verifyJiveExtn(header, SECRET, { now: NOW })).ok, true);
});
