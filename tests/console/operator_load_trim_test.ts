// The delivery log's retention trim while two consoles on one KV file take
// the platform's postbacks (16 at once each): no answer is a 500, every
// 200 is in the log once at most, and the log keeps its newest `retain`
// rows: the trim of one console never deletes past the retention because
// the other wrote meanwhile.

import assert from "node:assert/strict";
import { startConsole, withHook } from "./_helpers.ts";
import { tally, underLoad } from "./_operator_load.ts";

const RETAIN = 200;

Deno.test("two consoles trimming one log while postbacks flow: no 500, and the log keeps its retention", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  const options = { deliveries: { retain: RETAIN } };
  try {
    await withHook(async (a, hook) => {
      const b = await startConsole({ ...options, kvPath });
      try {
        const community = (await a.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
        const until = new Promise((r) => setTimeout(r, 1500));
        const toB = { ...hook, callback: hook.callback.replace(a.origin, b.origin) };
        const [first, second] = await Promise.all([
          underLoad({ ...hook, community, until, tag: "trim-a", senders: 8 }),
          underLoad({ ...toB, community, until, tag: "trim-b", senders: 8 }),
        ]);
        const answers = [...first, ...second];
        await Promise.all([a.app.deliveries.flush(), b.app.deliveries.flush()]);
        const counts = tally(answers);
        assert.deepEqual(Object.keys(counts), ["200"], JSON.stringify(counts));
        const ids = new Set<string>();
        let rows = 0;
        for (let after = 0;;) {
          const page = await a.app.deliveries.list({ after, limit: 500, forward: true });
          if (page.length === 0) break;
          for (const row of page) ids.add(row.id);
          rows += page.length;
          after = page[page.length - 1].seq;
        }
        assert.equal(ids.size, rows, "a delivery is in the log twice");
        assert.ok(rows >= RETAIN, `the log kept ${rows} rows of ${answers.length}, fewer than its retention ${RETAIN}`);
        assert.ok(rows <= RETAIN + 64, `the log kept ${rows} rows, far past its retention ${RETAIN}`);
      } finally {
        await b.close();
      }
    }, { ...options, kv: await Deno.openKv(kvPath) });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
