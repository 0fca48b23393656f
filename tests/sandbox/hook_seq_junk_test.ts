// The sandbox's webhook id sequence, as KV keeps it, edited by hand (or left by a bad write) into junk: a string,
// NaN, null, an object, a number below the ids already given (even 0 or negative), a fraction. A new webhook still
// gets a canonical id no other webhook has, and no webhook made before is overwritten or lost.

import assert from "node:assert/strict";
import { SANDBOX_KV_PREFIX } from "../../sandbox/mod.ts";
import { withServed } from "./_served.ts";

const JUNK: unknown[] = ["x", NaN, null, {}, [], 1000, 1001, 0, -5, 1000.5, Infinity];

Deno.test("sandbox: a webhook id sequence edited into junk gives a new canonical id and overwrites no webhook", async () => {
  await withServed(async ({ kv, sandbox, origin, callback }) => {
    const seqKey = [...SANDBOX_KV_PREFIX, "webhook_seq"];
    assert.ok((await kv.get(seqKey)).versionstamp === null, "no sequence before the first webhook");
    const first = await sandbox.createHook(origin, { events: ["user_account"], callback }) as { id: string };
    assert.equal((await kv.get(seqKey)).value, Number(first.id), "the sequence is kept where this test edits it");
    const ids = [first.id];
    for (const value of JUNK) {
      await kv.set(seqKey, value);
      const made = await sandbox.createHook(origin, { events: ["user_session"], callback }) as { id: string };
      const shown = typeof value === "number" ? String(value) : JSON.stringify(value);
      assert.match(made.id, /^[1-9][0-9]*$/, `the id over the sequence ${shown}`);
      assert.ok(!ids.includes(made.id), `the id ${made.id} over the sequence ${shown} is given already`);
      ids.push(made.id);
      const listed = (await sandbox.listHooks() as { id: string; events: string[] }[]).map((h) => h.id);
      assert.deepEqual(listed.toSorted(), ids.toSorted(), `the webhooks over the sequence ${shown}`);
    }
    const kept = (await sandbox.listHooks() as { id: string; events: string[] }[]).find((h) => h.id === first.id);
    assert.deepEqual(kept?.events, ["user_account"], "the first webhook is as it was made");
  });
});
