// `relay redeliver` of the same dead letter twice at once (two operators, or a
// script run twice): it goes back in the outbox once. One run says
// "Sent again" (status 0); the other finds no dead letter (status 1); the
// entry has one pending forward, and the app gets it once. And enable,
// disable and remove of one destination at once: each says what it did.

import assert from "node:assert/strict";
import { cli } from "./_cli_setup.ts";
import { type Ran, withDeadLetters } from "./_relay_setup.ts";
import { until } from "../relay/fixtures.ts";

/** How many of `runs` sent `id` again, and how many found it no dead letter. */
function tally(runs: Ran[], id: string): { sent: number; notDead: number } {
  return {
    sent: runs.filter((r) => r.code === 0 && r.out === `Sent again: ${id}`).length,
    notDead: runs.filter((r) => r.code === 1 && r.out === `Not a dead letter: ${id}`).length,
  };
}

Deno.test("cli relay redeliver: the same dead letter twice at once (in process) goes back once", async () => {
  await withDeadLetters(1, async ({ run, relay, dead, app, status }) => {
    const [letter] = dead;
    const runs = await Promise.all([1, 2, 3].map(() => run(["relay", "redeliver", letter.id])));
    assert.deepEqual(tally(runs, letter.id), { sent: 1, notDead: 2 }, JSON.stringify(runs));
    const forwards = await relay.forwards(letter.postbackId);
    assert.deepEqual(forwards.map((f) => f.state), ["pending"]);
    status.value = 200;
    const mine = () => app.received.filter((r) => r.id === letter.id).length;
    const before = mine();
    const worker = relay.run();
    try {
      await until(async () => (await relay.forwards(letter.postbackId))[0]?.state === "delivered", 10_000, "delivered");
    } finally {
      await worker.stop();
    }
    assert.equal(mine(), before + 1, "delivered once");
  });
});

Deno.test("cli relay redeliver: the same dead letter from two processes at once goes back once", async () => {
  await withDeadLetters(1, async ({ path, relay, dead }) => {
    const [letter] = dead;
    const runs = await Promise.all([1, 2].map(() => cli(["relay", "redeliver", letter.id, "--kv", path])));
    const ran = runs.map((r) => ({ code: r.code, out: r.stdout.trim(), err: r.stderr }));
    assert.deepEqual(tally(ran, letter.id), { sent: 1, notDead: 1 }, JSON.stringify(ran));
    assert.deepEqual((await relay.forwards(letter.postbackId)).map((f) => f.state), ["pending"]);
    assert.equal(await relay.deadLetter(letter.id), null);
  });
});

// `relay disable` (or `enable`) of one destination three times at once: one run changed it and says so; the others
// found it already so. Each run's word is true to what it did.
Deno.test("cli relay disable|enable: three at once (in process), one changes it, the others find it already so", async () => {
  await withDeadLetters(1, async ({ run, relay, destination }) => {
    const { id } = destination;
    for (const [command, done, word] of [["disable", "Disabled", "disabled"], ["enable", "Enabled", "enabled"]]) {
      const runs = await Promise.all([1, 2, 3].map(() => run(["relay", command, id])));
      assert.ok(runs.every((r) => r.code === 0), JSON.stringify(runs));
      const changed = runs.filter((r) => r.out.startsWith(`${done} destination ${id}:`)).length;
      const already = runs.filter((r) => r.out === `Destination ${id} was already ${word}`).length;
      assert.deepEqual({ changed, already }, { changed: 1, already: 2 }, JSON.stringify(runs.map((r) => r.out)));
      assert.equal((await relay.destinations.get(id))?.enabled, command === "enable");
    }
  });
});

Deno.test("cli relay remove: the same destination from two processes at once, one removes it, the other fails", async () => {
  await withDeadLetters(1, async ({ path, relay, destination }) => {
    const runs = await Promise.all([1, 2].map(() => cli(["relay", "remove", destination.id, "--kv", path])));
    assert.deepEqual(runs.map((r) => r.code).sort(), [0, 1], JSON.stringify(runs));
    const failed = runs.find((r) => r.code === 1)!;
    assert.match(failed.stderr, new RegExp(`Error: No destination has the id '${destination.id}'`));
    assert.equal(await relay.destinations.get(destination.id), null);
  });
});
