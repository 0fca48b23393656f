// The argument errors of signJiveExtn() and verifyJiveExtn(): a TypeError for
// a bad secret (not shown) or parameter, a RangeError for a negative maxAgeMs.

import assert from "node:assert/strict";
import { signJiveExtn, verifyJiveExtn } from "../../../webhooks/mod.ts";
import { PARAMS, SECRET } from "./_jive_extn.ts";

Deno.test("signJiveExtn() and verifyJiveExtn() throw a TypeError for a bad secret without showing it", async () => {
  const bad = "not base64 at all!";
  await assert.rejects(() => signJiveExtn(PARAMS, bad), (error: Error) => {
    assert.ok(error instanceof TypeError);
    assert.equal(
      error.message,
      "Cannot sign: 'clientSecret' is not valid base64",
    );
    return true;
  });
  await assert.rejects(
    () => verifyJiveExtn("JiveEXTN x", ""),
    new TypeError(
      "Cannot verify: 'clientSecret' must be a non-empty base64 string",
    ),
  );
});

Deno.test("signJiveExtn() throws a TypeError naming a bad parameter", async () => {
  await assert.rejects(
    () => signJiveExtn({ ...PARAMS, tenantId: "" }, SECRET),
    new TypeError(
      "Cannot sign: 'tenantId' must be a non-empty string, got \"\"",
    ),
  );
  await assert.rejects(
    () => signJiveExtn({ ...PARAMS, timestamp: 1.5 }, SECRET),
    new TypeError(
      "Cannot sign: 'timestamp' must be a non-negative integer of milliseconds, got 1.5",
    ),
  );
  for (const params of [null, "tenant"]) {
    await assert.rejects(
      () => signJiveExtn(params as never, SECRET),
      new TypeError(`Cannot sign: 'params' must be an object, got ${params}`),
    );
  }
});

Deno.test("verifyJiveExtn() throws a RangeError for a negative maxAgeMs", async () => {
  await assert.rejects(
    () => verifyJiveExtn("JiveEXTN x", SECRET, { maxAgeMs: -1 }),
    new RangeError(
      "Cannot verify: 'maxAgeMs' must be a non-negative number, got -1",
    ),
  );
});
