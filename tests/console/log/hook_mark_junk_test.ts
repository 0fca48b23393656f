// The hook index's mark hand-edited to a number no process can have taken
// yet (far past the clock): one hook's pages stopped at the old mark and
// the index never moved again (660 of 900 deliveries listed). Such a mark
// is read as none: the index packs again from the log's oldest row, and
// every delivery is listed once.

import assert from "node:assert/strict";
import { DeliveryStore } from "../../../console/log/mod.ts";

const MARK: Deno.KvKey = ["console_delivery_hook_mark"];

for (const junk of [1e300, Number.MAX_SAFE_INTEGER, "junk"]) {
  Deno.test(`a hook index mark of ${JSON.stringify(junk)}: every delivery of the hook is listed once`, async () => {
    const kv = await Deno.openKv(":memory:");
    try {
      const store = new DeliveryStore(kv, { retain: 5000, settleMs: 0 });
      const add = async (tag: string, n: number) => {
        for (let p = 0; p < n; p++) {
          await store.add("h1", Array.from({ length: 10 }, (_, i) => ({ activity: { title: `${tag}${p}-${i}` } })));
        }
      };
      await add("a", 60);
      await store.index();
      await kv.set(MARK, junk);
      await add("b", 30);
      await store.index();
      const seen: number[] = [];
      let page = await store.page({ hookId: "h1", limit: 200 });
      for (let i = 0; i < 20; i++) {
        seen.push(...page.values.map((view) => view.seq));
        if (page.before === undefined) break;
        page = await store.page({ hookId: "h1", limit: 200, before: page.before });
      }
      assert.equal(new Set(seen).size, seen.length, "each once");
      assert.equal(seen.length, 900);
      const mark = (await kv.get<number>(MARK)).value!;
      assert.ok(mark <= seen[0], `the mark ${mark} is at most the newest number ${seen[0]}`);
      await store.flush();
    } finally {
      kv.close();
    }
  });
}
