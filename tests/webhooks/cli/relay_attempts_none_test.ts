// `relay attempts ID` when no attempt is recorded: it says which case it is, naming the id, where the KV tells: an
// entry waiting in the outbox untried, a dead letter whose attempts are past their 30 days, or no entry at all. Run
// in process through `main` on a real KV file (see _relay_setup.ts), status 1 in each case.

import assert from "node:assert/strict";
import { withDeadLetters } from "./_relay_setup.ts";
import { postback, writeAll } from "../relay/fixtures.ts";

const UNKNOWN = `msg_${"0".repeat(26)}`;

Deno.test("cli relay attempts: no attempt recorded says whether the entry waits, is a dead letter, or is not there", async () => {
  await withDeadLetters(1, async ({ run, relay, kv, dead }) => {
    await relay.destinations.list(); // this process's list confirmed: the write below adds the entry itself
    await writeAll(kv, relay.write, [postback("h1", 0, "waiting")]);
    const [forward] = await relay.forwards("waiting");
    assert.ok(forward.destinationId !== null, "an entry, not a fan-out record");
    const waiting = await run(["relay", "attempts", forward.entryId]);
    assert.equal(waiting.code, 1);
    assert.equal(
      waiting.err.trim(),
      `Error: No attempts are recorded for entry '${forward.entryId}': it waits in the outbox, not tried yet`,
    );

    const [letter] = dead;
    for await (const entry of kv.list({ prefix: ["relay_attempt", letter.id] })) await kv.delete(entry.key); // 30 days on
    const old = await run(["relay", "attempts", letter.id]);
    assert.equal(old.code, 1);
    assert.equal(
      old.err.trim(),
      `Error: No attempts are recorded for entry '${letter.id}': it is a dead letter, its attempts older than 30 days`,
    );

    const unknown = await run(["relay", "attempts", UNKNOWN]);
    assert.equal(unknown.code, 1);
    assert.equal(
      unknown.err.trim(),
      `Error: No attempts are recorded for entry '${UNKNOWN}': no entry waits or is a dead letter under that id ` +
        "(a delivered entry's attempts are kept 30 days)",
    );
  });
});
