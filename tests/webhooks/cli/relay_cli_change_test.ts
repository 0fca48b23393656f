// `relay enable`, `relay disable` and `relay remove`: an operator whose app
// answered 410 (which disables its destination) enables it again from the
// command line, and the entries kept while it was paused are delivered once
// the app answers 200; disabling pauses; removing takes the destination's dead
// letters with it. Run in process through `main` on a real KV file, against a
// real relay and app on 127.0.0.1. No output holds the secret.

import assert from "node:assert/strict";
import { noSecret, type RelaySetup, withDeadLetters } from "./_relay_setup.ts";
import { createRelay } from "../../../webhooks/mod.ts";
import { postback, until, writeAll } from "../relay/fixtures.ts";

const P = "e".repeat(64);
const UNKNOWN = "0".repeat(26);

/** How many of P's entries are in `state`; "paused": pending with no next attempt time (kept, untried). */
async function count({ relay }: RelaySetup, state: "paused" | "delivered"): Promise<number> {
  const forwards = await relay.forwards(P);
  return forwards.filter((f) =>
    state === "paused" ? f.state === "pending" && f.nextAttemptAt === null : f.state === state
  )
    .length;
}

Deno.test("cli relay enable: a destination a 410 disabled delivers its paused entries once the app answers 200", async () => {
  await withDeadLetters(1, async (setup) => {
    const { run, kv, relay, status, destination } = setup;
    status.value = 410;
    await writeAll(kv, relay.write, [0, 1, 2].map((i) => postback("h1", i, P)));
    const worker = relay.run({ concurrency: 1 });
    try {
      await until(async () => (await relay.deadLetters()).values.length === 2, 10_000, "the 410's dead letter");
      await until(async () => await count(setup, "paused") === 2, 10_000, "the other entries paused");
      assert.equal((await relay.destinations.get(destination.id))?.enabled, false);
      const gone = (await relay.deadLetters({ newestFirst: true })).values[0];
      const refused = await run(["relay", "redeliver", gone.id]);
      assert.equal(refused.code, 1);
      assert.match(refused.out, new RegExp(`is disabled: .*relay enable ${destination.id}`));

      status.value = 200;
      const ran = await run(["relay", "enable", destination.id]);
      assert.equal(ran.code, 0, ran.err);
      assert.equal(ran.out, `Enabled destination ${destination.id}: its paused entries are due again`);
      noSecret(ran, destination.secret);
      assert.equal((await relay.destinations.get(destination.id))?.enabled, true);
      await until(async () => await count(setup, "delivered") === 2, 10_000, "the paused entries delivered");

      const again = await run(["relay", "enable", destination.id]);
      assert.equal(again.code, 0, again.err);
      assert.equal(again.out, `Destination ${destination.id} was already enabled`);
      // Enabled, the 410's dead letter is sent again too.
      const sent = await run(["relay", "redeliver", gone.id]);
      assert.equal(sent.code, 0, sent.err);
      await until(async () => await count(setup, "delivered") === 3, 10_000, "the dead letter delivered");
    } finally {
      await worker.stop();
    }
  });
});

Deno.test("cli relay disable: pauses the destination, its waiting entries kept untried; --json gives the destination", async () => {
  await withDeadLetters(1, async (setup) => {
    const { run, kv, relay, app, status, destination } = setup;
    status.value = 200;
    await writeAll(kv, relay.write, [0, 1].map((i) => postback("h1", i, P)));
    const ran = await run(["relay", "disable", destination.id]);
    assert.equal(ran.code, 0, ran.err);
    assert.match(
      ran.out,
      new RegExp(`^Disabled destination ${destination.id}: nothing is sent to it.*relay enable ${destination.id}`),
    );
    noSecret(ran, destination.secret);
    assert.equal((await relay.destinations.get(destination.id))?.enabled, false);
    const before = app.received.length;
    // A worker of the service's own (a process that reads the destinations anew): the set-up's relay trusts the list
    // it read for a second (docs/relay.md), as any process's relay does.
    const service = createRelay(kv, { allowPrivateNetwork: true });
    const worker = service.run();
    try {
      await until(async () => await count(setup, "paused") === 2, 10_000, "the entries paused");
      assert.equal(app.received.length, before, "nothing sent while disabled");
      const again = await run(["relay", "disable", destination.id, "--json"]);
      assert.equal(again.code, 0, again.err);
      const shown = JSON.parse(again.out);
      assert.deepEqual(shown, { ...(await relay.destinations.get(destination.id)), changed: false });
      assert.equal(shown.enabled, false);
      noSecret(again, destination.secret);

      const enabled = await run(["relay", "enable", destination.id, "--json"]);
      assert.equal(enabled.code, 0, enabled.err);
      assert.deepEqual(JSON.parse(enabled.out), { ...(await relay.destinations.get(destination.id)), changed: true });
      assert.equal(JSON.parse(enabled.out).enabled, true);
      noSecret(enabled, destination.secret);
      await until(async () => await count(setup, "delivered") === 2, 10_000, "the entries delivered");
    } finally {
      await worker.stop();
      await service.close();
    }
  });
});

Deno.test("cli relay remove: the destination goes with its dead letters; --json says so", async () => {
  await withDeadLetters(2, async ({ run, relay, destination, dead }) => {
    const other = await relay.destinations.add({ url: `${destination.url}&other=1` });
    const ran = await run(["relay", "remove", destination.id]);
    assert.equal(ran.code, 0, ran.err);
    assert.match(ran.out, new RegExp(`^Removed destination ${destination.id}, with .*dead letters`));
    noSecret(ran, destination.secret);
    assert.equal(await relay.destinations.get(destination.id), null);
    for (const letter of dead) assert.equal(await relay.deadLetter(letter.id), null);
    assert.deepEqual((await relay.deadLetters()).values, []);

    const again = await run(["relay", "remove", destination.id]);
    assert.equal(again.code, 1);
    assert.match(again.err, new RegExp(`^Error: No destination has the id '${destination.id}'`));

    const json = await run(["relay", "remove", other.id, "--json"]);
    assert.equal(json.code, 0, json.err);
    assert.deepEqual(JSON.parse(json.out), { id: other.id, removed: true });
    noSecret(json, other.secret);
    assert.deepEqual(await relay.destinations.list(), []);
  });
});

Deno.test("cli relay enable|disable|remove: an unknown id fails (1), a malformed one is a usage error (2), nothing changed", async () => {
  await withDeadLetters(1, async ({ run, relay, dead, destination }) => {
    const before = await relay.destinations.list();
    for (const command of ["enable", "disable", "remove"]) {
      const unknown = await run(["relay", command, UNKNOWN]);
      assert.equal(unknown.code, 1, `${command}: ${unknown.err}`);
      assert.match(unknown.err, new RegExp(`^Error: No destination has the id '${UNKNOWN}'`));
      assert.equal(unknown.out, "");
      for (const bad of ["nope", `${destination.id}x`, `msg_${UNKNOWN}`]) {
        const malformed = await run(["relay", command, bad]);
        assert.equal(malformed.code, 2, `${command} ${bad}: ${malformed.err}`);
        assert.ok(malformed.err.startsWith(`Error: '${bad}' is no destination id`), malformed.err);
        assert.equal(malformed.out, "");
      }
      const missing = await run(["relay", command]);
      assert.equal(missing.code, 2);
      assert.match(missing.err, new RegExp(`^Error: 'relay ${command}' takes DESTINATION_ID, got none`));
      noSecret(unknown, destination.secret);
    }
    assert.deepEqual(await relay.destinations.list(), before);
    assert.deepEqual(await relay.deadLetter(dead[0].id), dead[0]);
  });
});
