// Paging Newer to the top of the log while postbacks arrive: a Newer page
// with nothing newer past it is shown as the first page, whole and live,
// read again after the page just past the cursor. Rows stored between the
// two reads must not push the rows just past the cursor off the page shown:
// a walk Newer would skip them, with no Newer link left to reach them.

import assert from "node:assert/strict";
import { signIn, startConsole } from "./_helpers.ts";

const item = (n: number) => ({ activity: { verb: "jive:created", title: `item ${n}` } });

Deno.test("a Newer page that reaches the top while deliveries arrive shows the rows just past its cursor", async () => {
  const t = await startConsole();
  let writing = true;
  try {
    const client = await signIn(t.origin);
    const store = t.app.deliveries;
    for (let n = 0; n < 100; n++) await store.add("hook-1", [item(n)]);
    // Another writer of this console stores one delivery after another meanwhile.
    let n = 100;
    const writer = (async () => {
      while (writing) await store.add("hook-1", [item(n++)]);
    })();
    const skipped: string[] = [];
    for (let round = 0; round < 15; round++) {
      const rows = await store.list({ limit: 45 });
      const cursor = rows[rows.length - 1].seq;
      const [next] = await store.list({ after: cursor, limit: 1, forward: true });
      const res = await client.fetch(`/deliveries?after=${cursor}`);
      const html = await res.text();
      assert.equal(res.status, 200);
      const shown = [...html.matchAll(/<tr id="delivery-([^"]+)"/g)].map((m) => m[1]);
      if (!shown.includes(next.id)) skipped.push(`after=${cursor}: ${next.id} not shown`);
    }
    writing = false;
    await writer;
    assert.deepEqual(skipped, [], "the row just past the cursor is on the page");
  } finally {
    writing = false;
    await t.close();
  }
});
