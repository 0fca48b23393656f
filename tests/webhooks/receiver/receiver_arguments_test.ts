// createReceiver(): the TypeError and RangeError of each wrong argument.

import assert from "node:assert/strict";
import { createReceiver, createWebhooks } from "../../../webhooks/mod.ts";

Deno.test("createReceiver() checks its arguments", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    const onPostback = () => {};
    assert.throws(
      () => createReceiver(hooks, {} as never),
      new TypeError("Cannot create receiver: give exactly one of 'onPostback' and 'write'"),
    );
    assert.throws(
      () => createReceiver(hooks, { onPostback, write: () => {} }),
      new TypeError("Cannot create receiver: give exactly one of 'onPostback' and 'write'"),
    );
    assert.throws(
      () => createReceiver(hooks, { write: "x" as never }),
      new TypeError("Cannot create receiver: 'write' must be a function"),
    );
    assert.throws(
      () => createReceiver(hooks, { onPostback: 1 as never }),
      new TypeError("Cannot create receiver: 'onPostback' must be a function"),
    );
    assert.throws(
      () => createReceiver(hooks, { onPostback, sequence: ["seq"] }),
      new TypeError("Cannot create receiver: 'sequence' is only used with 'write'"),
    );
    assert.throws(
      () => createReceiver(hooks, { write: () => {}, sequence: [] }),
      new TypeError("Cannot create receiver: 'sequence' must be a KV key (a non-empty array)"),
    );
    assert.throws(
      () => createReceiver(hooks, null as never),
      new TypeError("Cannot create receiver: 'options' must be an object with 'onPostback' or 'write'"),
    );
    assert.throws(
      () => createReceiver(hooks, { onPostback, onAttempt: 1 as never }),
      new TypeError("Cannot create receiver: 'onAttempt' must be a function"),
    );
    assert.throws(
      () => createReceiver({ ...hooks }, { onPostback }),
      new TypeError("Cannot create receiver: 'hooks' was not made by createWebhooks; pass the KV as 'kv'"),
    );
    assert.ok(createReceiver({ ...hooks }, { onPostback, kv }));
    for (const notHooks of [null, "hooks", { communities: {} }]) {
      assert.throws(
        () => createReceiver(notHooks as never, { onPostback, kv }),
        new TypeError("Cannot create receiver: 'hooks' must be the store made by createWebhooks"),
      );
    }
    for (const name of ["maxBytes", "maxItems", "bodyTimeoutMs", "claimLeaseMs"]) {
      assert.throws(
        () => createReceiver(hooks, { onPostback, [name]: 0 }),
        new RangeError(`Cannot create receiver: '${name}' must be a positive integer, got 0`),
      );
    }
    assert.throws(
      () => createReceiver(hooks, { onPostback, maxAgeMs: -1 }),
      new RangeError("Cannot create receiver: 'maxAgeMs' must be a non-negative number, got -1"),
    );
  } finally {
    kv.close();
  }
});
