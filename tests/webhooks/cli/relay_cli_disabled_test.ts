// `relay redeliver` of a dead letter whose destination is disabled (as a 410
// from the app disables it): the entry would only wait, untried, while the
// destination stays disabled, so the command must not say "Sent again" and end
// 0. As the console's Redeliver does (409, "Enable it, then Redeliver"), it
// leaves the dead letter where it is and fails (status 1), naming the
// destination to enable; the other ids given are still sent.

import assert from "node:assert/strict";
import { noSecret, withDeadLetters } from "./_relay_setup.ts";
import { until } from "../relay/fixtures.ts";

Deno.test("cli relay redeliver: a dead letter of a disabled destination is not sent again, and says why", async () => {
  await withDeadLetters(1, async ({ run, relay, dead, destination }) => {
    const [letter] = dead;
    await relay.destinations.update(destination.id, { enabled: false });
    const ran = await run(["relay", "redeliver", letter.id]);
    assert.equal(ran.code, 1, ran.out);
    assert.ok(!ran.out.includes("Sent again"), ran.out);
    assert.match(ran.out, new RegExp(`^Not sent again: ${letter.id}: its destination ${destination.id} is disabled`));
    assert.match(ran.err, new RegExp(`^Error: 1 of 1 entries were not sent again: '${letter.id}'`));
    assert.deepEqual(await relay.deadLetter(letter.id), letter, "still a dead letter, untouched");
    noSecret(ran, destination.secret);
    const json = await run(["relay", "redeliver", letter.id, "--json"]);
    assert.equal(json.code, 1);
    const done = JSON.parse(json.out);
    assert.deepEqual(done.sent, []);
    assert.equal(done.failed[0].id, letter.id);
    assert.match(done.failed[0].error, /is disabled: enable it, then redeliver/);
    // Enabled again, it is sent.
    await relay.destinations.update(destination.id, { enabled: true });
    const sent = await run(["relay", "redeliver", letter.id]);
    assert.equal(sent.code, 0, sent.err);
    assert.equal(sent.out, `Sent again: ${letter.id}`);
    assert.equal(await relay.deadLetter(letter.id), null);
  });
});

Deno.test("cli relay redeliver: a dead letter whose destination was removed meanwhile is named, the others still sent", async () => {
  await withDeadLetters(2, async ({ run, kv, relay, dead, destination }) => {
    const [gone, kept] = dead;
    // The removal deletes its dead letters after it; one read in between is as this one, written back.
    await relay.destinations.remove(destination.id);
    await until(async () => (await relay.deadLetter(gone.id)) === null, 10_000, "the removal's deletes");
    await kv.set(["relay_dead", gone.id], gone);
    const other = await relay.destinations.add({ url: destination.url });
    await kv.set(["relay_dead", kept.id], { ...kept, destinationId: other.id });
    const ran = await run(["relay", "redeliver", gone.id, kept.id]);
    assert.equal(ran.code, 1, ran.err);
    const [first, second] = ran.out.split("\n");
    // Said once, naming the destination (the relay's own message named the entry a second time, and not it).
    assert.equal(first, `Not sent again: ${gone.id}: its destination ${destination.id} was removed`);
    assert.equal(second, `Sent again: ${kept.id}`);
    assert.match(ran.err, new RegExp(`^Error: 1 of 2 entries were not sent again: '${gone.id}'`));
  });
});
