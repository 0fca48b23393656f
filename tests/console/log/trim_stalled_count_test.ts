// A trimmer that stalls past its lease (30 s) while it counts the log, and
// then goes on: meanwhile another process took the lease and trimmed the
// log to its retention. The count's commit checks that its trimmer still
// holds the lease; without that check the stalled count sets the trimmed
// count from rows since deleted, so the log's count runs high, and the next
// process to take the lease trims by it the rows the retention keeps.

import assert from "node:assert/strict";
import { DeliveryStore, type DeliveryView } from "../../../console/log/mod.ts";
import { withTwoHandles } from "../_kv_faults.ts";
import { holdFirst } from "../../_hold_first.ts";

const TRIMMED = "console_delivery_trimmed";
const RETAIN = 200;
const LEASE_MS = 30_000;

const items = (n: number, tag: string) => Array.from({ length: n }, (_, k) => ({ activity: { title: `${tag}${k}` } }));

Deno.test("a count of the log stalled past its lease does not make the next holder trim the rows the retention keeps", () =>
  withTwoHandles(async (a, b) => {
    const realNow = Date.now;
    try {
      // Console A writes 100 rows: its first trim takes the lease and counts the log; that count's commit (it sets
      // the trimmed count) is held.
      const held = holdFirst(a, (key, mutation) => mutation === "set" && key[0] === TRIMMED);
      const first = new DeliveryStore(a, { retain: RETAIN });
      await first.add("h1", items(100, "a"));
      await held.held;
      // Console B writes 300 rows; A stalls past its lease, and B takes it and trims the log to its 200 rows.
      const second = new DeliveryStore(b, { retain: RETAIN });
      const written: DeliveryView[] = [];
      for (let n = 0; n < 3; n++) written.push(...await second.add("h1", items(100, `b${n}-`)));
      Date.now = () => realNow() + LEASE_MS + 1_000;
      await second.flush();
      held.release();
      await first.flush(); // A's count lands (or not), and its trim goes on
      // B stops; a third console takes the lease once B's lapsed, and writes 50 rows (its trim starts).
      Date.now = () => realNow() + 2 * (LEASE_MS + 1_000);
      const third = new DeliveryStore(b, { retain: RETAIN });
      written.push(...await third.add("h1", items(50, "c")));
      await third.flush();
      const kept = written.slice(-RETAIN).map((view) => view.id).reverse();
      const page = await third.page({ limit: 300 });
      const missing = kept.filter((id) => !page.values.some((view) => view.id === id)).length;
      assert.equal(missing, 0, `${missing} of the ${RETAIN} newest rows the retention keeps are gone from the log`);
      assert.deepEqual(page.values.map((view) => view.id), kept);
    } finally {
      Date.now = realNow;
    }
  }));
