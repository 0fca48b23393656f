// update()'s marker must stand while any PUT of that update may still land:
// an update that sends its change again (another update saved the record
// meanwhile) is still running when its first marker is older than the time
// after which other updates take it for dead and delete it. If that later PUT
// lands and its answer is lost, the next update() must still find a marker
// and read the hook first, not send the record's older state back.

import assert from "node:assert/strict";
import { createWebhooks } from "../../webhooks/mod.ts";
import { communityOf, FIRST_HOOK_ID, withPlatform } from "./platform.ts";

const CALLBACK = "https://receiver.example/hooks/1";
/**
 * The calls' time limit. Each resend must set a fresh marker (the assertion at the fifth PUT), whatever age others take
 * a marker for dead at (six of these and 20 s now). Not shorter: a request to the platform on 127.0.0.1 must finish
 * within it on a loaded machine (at 500 ms one did not, on a CI run beside other suites, and the update ended early).
 */
const TIMEOUT = 2_000;

Deno.test("update() sending its change again after its first marker aged out leaves a marker when that PUT's answer is lost", async () => {
  await withPlatform(async (kv, platform) => {
    const other = createWebhooks(kv, { timeout: TIMEOUT });
    await other.communities.save(communityOf(platform));
    await other.register("Acme", ["user_account"], null, CALLBACK);
    const [record] = await other.findByTenantID("tenant-acme");
    let puts = 0;
    let lastAnswer = 0;
    // Each of the slow update's first four PUTs is taken, then the record changes before its answer comes (so it
    // sends its change again), 0.7 s apart. Before its fifth, another update enables the hook; the fifth lands and
    // its answer is lost.
    const slow: typeof fetch = async (input, init) => {
      if (init?.method !== "PUT") return await fetch(input, init);
      if (++puts === 5) {
        // Whatever age others take a marker for dead at, the one that stands for this PUT was set after the last one.
        const markers = await Array.fromAsync(
          kv.list<{ startedAt: number }>({ prefix: ["webhook_update", record.id] }),
        );
        assert.ok(markers.some((m) => m.value.startedAt >= lastAnswer), "no marker set since the last PUT");
        await other.update(record.id, { enabled: true });
        const response = await fetch(input, init);
        await response.body?.cancel();
        throw new TypeError("connection reset");
      }
      const response = await fetch(input, init);
      const text = await response.text();
      await other.save((await other.findByID(record.id))!);
      await new Promise((resolve) => setTimeout(resolve, 700));
      lastAnswer = Date.now();
      return new Response(text, response);
    };
    const lost = await createWebhooks(kv, { fetch: slow, timeout: TIMEOUT }).update(record.id, { enabled: false })
      .then(() => null, (error) => error);
    assert.equal(lost?.uncertain, true);
    assert.equal(puts, 5);
    assert.equal((await platform.hook(FIRST_HOOK_ID))?.enabled, false, "the lost update's PUT landed last");

    await other.update(record.id, { events: ["user_account", "user_session"] });
    const hook = await platform.hook(FIRST_HOOK_ID);
    assert.deepEqual(hook?.events, ["user_account", "user_session"]);
    assert.equal(hook?.enabled, false, "the hook was enabled again");
    assert.deepEqual((await other.findByID(record.id))?.entity, hook);
  });
});
