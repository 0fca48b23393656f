// The `relay` commands: an operator lists destinations, dead letters and an
// entry's attempts, and sends dead letters again, without writing code. Run
// in process through `main` on a real KV file, against a real relay whose app
// on 127.0.0.1 answers 500 (so entries die under a one-step schedule), then
// 200 (so a redelivered entry is delivered). No output holds the secret.

import assert from "node:assert/strict";
import { noSecret, type Ran, withDeadLetters } from "./_relay_setup.ts";
import { until } from "../relay/fixtures.ts";

const UNKNOWN = `msg_${"0".repeat(26)}`;

/** The lines of a table's body (its head and the rule under it dropped). */
const rows = (ran: Ran) => ran.out.split("\n").slice(2);

Deno.test("cli relay destinations: a table and a --json array, never the secret", async () => {
  await withDeadLetters(1, async ({ run, relay, destination }) => {
    const table = await run(["relay", "destinations"]);
    assert.equal(table.code, 0, table.err);
    assert.match(table.out, /^ID +URL +HOOKS +ENABLED +PINNED +CREATED/);
    const [row, ...more] = rows(table);
    assert.deepEqual(more, []);
    assert.ok(row.startsWith(destination.id), row);
    assert.ok(row.includes(`${destination.url} `), row);
    assert.match(row, / all +yes +no +\d{4}-\d\d-\d\dT/);
    noSecret(table, destination.secret);
    const json = await run(["relay", "destinations", "--json"]);
    assert.equal(json.code, 0, json.err);
    assert.deepEqual(JSON.parse(json.out), await relay.destinations.list());
    noSecret(json, destination.secret);
  });
});

Deno.test("cli relay dead-letters: every dead letter, newest first, as a table and a --json array", async () => {
  await withDeadLetters(3, async ({ run, dead, destination }) => {
    const newest = [...dead].reverse();
    const table = await run(["relay", "dead-letters"]);
    assert.equal(table.code, 0, table.err);
    assert.match(table.out, /^ID +DESTINATION +HOOK +ATTEMPTS +DIED +REASON/);
    assert.deepEqual(rows(table).map((line) => line.split(/ +/)[0]), newest.map((l) => l.id));
    assert.match(rows(table)[0], new RegExp(`${destination.id} +h1 +2 +\\d{4}-`));
    noSecret(table, destination.secret);
    const json = await run(["relay", "dead-letters", "--json"]);
    assert.equal(json.code, 0, json.err);
    assert.deepEqual(JSON.parse(json.out), newest);
    const mine = await run(["relay", "dead-letters", "--destination", destination.id, "--json"]);
    assert.equal(mine.code, 0, mine.err);
    assert.deepEqual(JSON.parse(mine.out), newest);
    // A malformed id is a usage error (2), as it is for relay enable, disable and remove (it once failed with 1 here,
    // naming no destination); a well-formed id that names none fails (1).
    const malformed = await run(["relay", "dead-letters", "--destination", "nope"]);
    assert.equal(malformed.code, 2, malformed.err);
    assert.match(malformed.err, /^Error: 'nope' is no destination id/);
    assert.equal(malformed.out, "");
    const none = await run(["relay", "dead-letters", "--destination", "0".repeat(26)]);
    assert.equal(none.code, 1, none.err);
    assert.match(none.err, new RegExp(`^Error: No destination has the id '${"0".repeat(26)}'`));
  });
});

Deno.test("cli relay attempts: an entry's attempts; the answer's excerpt only with --json", async () => {
  await withDeadLetters(1, async ({ run, relay, dead, destination }) => {
    const [letter] = dead;
    const table = await run(["relay", "attempts", letter.id]);
    assert.equal(table.code, 0, table.err);
    assert.match(table.out, /^TIME +STATUS +DURATION +ERROR/);
    assert.equal(rows(table).length, 2);
    assert.match(rows(table)[0], /^\d{4}-\d\d-\d\dT\S+ +500 +\d+ ms/);
    assert.ok(!table.out.includes("app says"), "no excerpt in the table");
    noSecret(table, destination.secret);
    const json = await run(["relay", "attempts", letter.id, "--json"]);
    assert.equal(json.code, 0, json.err);
    assert.deepEqual(JSON.parse(json.out), await relay.attempts(letter.id));
    assert.equal(JSON.parse(json.out)[0].response, "app says 500");
    const unknown = await run(["relay", "attempts", UNKNOWN]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, new RegExp(`^Error: No attempts are recorded for entry '${UNKNOWN}'`));
    const malformed = await run(["relay", "attempts", "not-an-id"]);
    assert.equal(malformed.code, 2);
    assert.match(malformed.err, /^Error: 'not-an-id' is no entry id/);
    const missing = await run(["relay", "attempts"]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /^Error: 'relay attempts' takes ENTRY_ID, got none/);
  });
});

Deno.test("cli relay redeliver: sends dead letters again (delivered once the app answers 200); names one that is not", async () => {
  await withDeadLetters(2, async ({ run, relay, dead, app, status, destination }) => {
    status.value = 200;
    const [first, second] = dead;
    const sent = await run(["relay", "redeliver", first.id]);
    assert.equal(sent.code, 0, sent.err);
    assert.equal(sent.out, `Sent again: ${first.id}`);
    noSecret(sent, destination.secret);
    const before = app.received.length;
    const worker = relay.run();
    try {
      await app.waitFor(before + 1);
      await until(async () => (await relay.forwards("p0")).some((f) => f.state === "delivered"), 10_000, "delivered");
    } finally {
      await worker.stop();
    }
    assert.equal(app.received.at(-1)!.id, first.id, "the same webhook-id");
    assert.equal(await relay.deadLetter(first.id), null);
    // One sent again, one not a dead letter (delivered now), one unknown: status 1, naming the two.
    const mixed = await run(["relay", "redeliver", second.id, first.id, UNKNOWN]);
    assert.equal(mixed.code, 1);
    assert.equal(
      mixed.out,
      [`Sent again: ${second.id}`, `Not a dead letter: ${first.id}`, `Not a dead letter: ${UNKNOWN}`].join("\n"),
    );
    assert.match(mixed.err, new RegExp(`^Error: 2 of 3 entries were not sent again: '${first.id}', '${UNKNOWN}'`));
    assert.equal(await relay.deadLetter(second.id), null, "back in the outbox");
    const json = await run(["relay", "redeliver", UNKNOWN, "--json"]);
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(json.out), { sent: [], notDeadLetters: [UNKNOWN], failed: [] });
    const malformed = await run(["relay", "redeliver", first.id, "msg_x"]);
    assert.equal(malformed.code, 2);
    assert.match(malformed.err, /^Error: 'msg_x' is no entry id/);
    const missing = await run(["relay", "redeliver"]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /^Error: 'relay redeliver' takes ENTRY_ID \[ENTRY_ID\.\.\.\], got none/);
  });
});

Deno.test("cli relay destinations: a URL stored with user info (an earlier version took it) shows it as ***", async () => {
  await withDeadLetters(1, async ({ run, kv, destination }) => {
    for await (const entry of kv.list<{ url: string }>({ prefix: ["relay_destination"] })) {
      const url = entry.value.url.replace("http://", "http://user:hunter2@");
      await kv.atomic().set(entry.key, { ...entry.value, url }).sum(["relay_destinations_version"], 1n).commit();
    }
    for (const argv of [["relay", "destinations"], ["relay", "destinations", "--json"]]) {
      const ran = await run(argv);
      assert.equal(ran.code, 0, ran.err);
      assert.match(ran.out, /http:\/\/user:\*\*\*@127\.0\.0\.1:\d+\/hooks\?team=blue/);
      assert.ok(!ran.out.includes("hunter2"), ran.out);
      noSecret(ran, destination.secret);
    }
  });
});
