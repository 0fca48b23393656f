// A destination record edited by hand in the KV (`add` and `update` check both fields): a malformed secret or URL
// fails each attempt with a reason that names the field and quotes neither, on the retry schedule (driven on a test
// clock), and the last attempt makes the entry a dead letter; `redeliver` of that letter tries it again and fails the
// same way. Nothing is left held under a lease that no worker will finish.

import assert from "node:assert/strict";
import { createRelay } from "../../../webhooks/mod.ts";
import { driveClock, postback, seedHooks, startApp, until, writeAll } from "./fixtures.ts";

const START = Date.UTC(2026, 5, 1);
/** The default schedule's attempts: the first and one after each of its 7 waits. */
const ATTEMPTS = 8;

async function deadOnSchedule(field: "secret" | "url", value: string, reason: RegExp): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  const clock = { t: START };
  const app = startApp();
  const relay = createRelay(kv, { allowPrivateNetwork: true, now: () => clock.t, pollMs: 10 });
  try {
    await seedHooks(kv);
    const bad = await relay.destinations.add({ url: app.url });
    const key = ["relay_destination", bad.id];
    const stored = (await kv.get<Record<string, unknown>>(key)).value!;
    await kv.atomic().set(key, { ...stored, [field]: value }).sum(["relay_destinations_version"], 1n).commit();
    await relay.destinations.list(); // this handle's list is now the edited one
    const worker = relay.run();
    await writeAll(kv, relay.write, [postback("h1", 0)]);
    await until(async () => (await Array.fromAsync(kv.list({ prefix: ["relay_due"] }))).length > 0, 5_000, "the entry");
    await driveClock(kv, clock, 8_000);
    const letters = (await relay.deadLetters()).values;
    assert.equal(letters.length, 1, "the entry is a dead letter");
    const attempts = await relay.attempts(letters[0].id);
    assert.equal(attempts.length, ATTEMPTS);
    for (const attempt of attempts) {
      assert.equal(attempt.status, 0);
      assert.match(attempt.error ?? "", reason);
      assert.ok(!(attempt.error ?? "").includes(value), "the stored value is not quoted");
    }
    assert.match(letters[0].reason, reason);

    assert.equal(await relay.redeliver(letters[0].id), true);
    await driveClock(kv, clock, 8_000);
    assert.equal((await relay.deadLetters()).values.length, 1, "redelivered, it is a dead letter again");
    assert.equal((await relay.attempts(letters[0].id)).length, 2 * ATTEMPTS);
    assert.equal(app.received.length, 0);
    await worker.stop();
  } finally {
    await relay.close();
    await app.close();
    kv.close();
  }
}

Deno.test("a malformed stored secret fails each attempt on the schedule, then a dead letter; redelivered, the same", async () => {
  await deadOnSchedule("secret", "whsec_not*base64", /secret/);
});

Deno.test("a malformed stored URL fails each attempt on the schedule, then a dead letter; redelivered, the same", async () => {
  await deadOnSchedule("url", "not a url?token=hidden", /url|URL/);
});
