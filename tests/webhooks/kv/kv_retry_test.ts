// retryWhileLocked(): a KV call is made again while the database is locked by
// another process, and any other error is thrown at once.

import assert from "node:assert/strict";
import { retryWhileLocked } from "../../../webhooks/mod.ts";

Deno.test("retryWhileLocked() calls again while the database is locked, then resolves", async () => {
  let calls = 0;
  const value = await retryWhileLocked(() => {
    calls++;
    return calls < 3 ? Promise.reject(new Error("database is locked")) : Promise.resolve("done");
  });
  assert.equal(value, "done");
  assert.equal(calls, 3);
});

Deno.test("retryWhileLocked() throws another error at once, and the lock error after its last attempt", async () => {
  let calls = 0;
  await assert.rejects(
    retryWhileLocked(() => {
      calls++;
      return Promise.reject(new TypeError("value too large"));
    }),
    TypeError,
  );
  assert.equal(calls, 1);
  calls = 0;
  await assert.rejects(
    retryWhileLocked(() => {
      calls++;
      return Promise.reject(new Error("SQLITE_BUSY: database is locked"));
    }),
    /locked/,
  );
  assert.equal(calls, 12);
});
