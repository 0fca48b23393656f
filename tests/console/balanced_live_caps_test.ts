// The live view's caps behind a load balancer: a session's streams are counted by each console process (they hold
// that process's watches and timers), so behind two consoles one session may hold 10 on each. docs/console.md said
// "at most 10 open at once per session", which two processes double unnoticed; it now says each process counts them.

import assert from "node:assert/strict";
import { startBalanced } from "./_balanced.ts";
import { signIn } from "./_helpers.ts";

Deno.test("behind two consoles a session's live views are capped per process, as docs/console.md says", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/console.md", import.meta.url));
  assert.match(
    doc.replace(/\s+/g, " "),
    /at most 10 open at once per session on each console process/,
    "docs/console.md names the per-session cap as a per-process one",
  );
  await using lb = await startBalanced();
  const client = await signIn(lb.origin);
  const open: ReadableStreamDefaultReader<Uint8Array>[] = [];
  try {
    const stream = async (side: "A" | "B") => {
      lb.next(side);
      const res = await client.fetch("/deliveries/events");
      if (res.status === 200) open.push(res.body!.getReader());
      else await res.body?.cancel();
      return res.status;
    };
    for (let i = 0; i < 10; i++) assert.equal(await stream("A"), 200, `stream ${i + 1} on A`);
    assert.equal(await stream("A"), 429, "an 11th on the same process");
    assert.equal(await stream("B"), 200, "the other process counts its own");
  } finally {
    await Promise.all(open.map((r) => r.cancel()));
  }
});
