// A trimmer that stalls past its lease (30 s) and then goes on: meanwhile
// another process took the lease and trimmed the log to its retention. Each
// commit of a trim checks that its trimmer still holds the lease; without
// that check the stalled trimmer's batch lands on the new holder's work.
// Stalled at its listing (after it read the counts), it lists the rows the
// retention keeps as "the oldest" and deletes them; stalled at its commit,
// it adds rows the new holder already deleted to the trimmed count again,
// so the count runs low and the log keeps rows past its retention.

import assert from "node:assert/strict";
import { DeliveryStore, type DeliveryView } from "../../../console/log/mod.ts";
import { withTwoHandles } from "../_kv_faults.ts";
import { holdFirst, holdFirstList } from "../../_hold_first.ts";

const LOG = "console_delivery_log";
const WRITTEN = "console_delivery_written";
const TRIMMED: Deno.KvKey = ["console_delivery_trimmed"];
const RETAIN = 50;
const LEASE_MS = 30_000;

const items = (n: number, tag: string) => Array.from({ length: n }, (_, k) => ({ activity: { title: `${tag}${k}` } }));

/** The log's rows as the trimmer counts them: written (all shards) less trimmed. */
async function countedRows(kv: Deno.Kv): Promise<bigint> {
  let written = 0n;
  for await (const e of kv.list<Deno.KvU64>({ prefix: [WRITTEN] })) written += e.value.value;
  const trimmed = (await kv.get<Deno.KvU64>(TRIMMED)).value?.value ?? 0n;
  return written - trimmed;
}

async function logRows(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: [LOG] })) n++;
  return n;
}

/**
 * Console A writes 100 rows (retention 50), which starts its trim; `hold`
 * stops that trim at one step. Console B writes 10 rows; the clock moves
 * past A's lease, and B takes the lease and trims to the retention. Then A
 * goes on. Returns B's store and the rows the retention keeps, oldest first.
 */
async function stalledTrim(
  a: Deno.Kv,
  b: Deno.Kv,
  hold: (kv: Deno.Kv) => { held: Promise<void>; release: () => void },
): Promise<{ second: DeliveryStore; kept: DeliveryView[] }> {
  const realNow = Date.now;
  try {
    const held = hold(a);
    const first = new DeliveryStore(a, { retain: RETAIN });
    const older = await first.add("h1", items(100, "a")); // past the retention and its slack: A starts trimming
    await held.held;
    const second = new DeliveryStore(b, { retain: RETAIN });
    const newer = await second.add("h1", items(10, "b"));
    // A stalls past its lease: B takes the lease, counts the log and trims it to the retention.
    Date.now = () => realNow() + LEASE_MS + 1_000;
    await second.flush();
    assert.equal(await logRows(b), RETAIN, "the second trimmer did not trim to the retention");
    held.release();
    await first.flush(); // waits for A's stalled trim; A's forced trim finds the lease held by B
    return { second, kept: [...older.slice(-(RETAIN - newer.length)), ...newer] };
  } finally {
    Date.now = realNow;
  }
}

Deno.test("a trimmer stalled past its lease before listing deletes none of the rows the new holder's trim kept", () =>
  withTwoHandles(async (a, b) => {
    // A's trim lists the oldest rows by the counts it read before B trimmed: held at that listing (its count of the
    // log lists with a batchSize, the hook index by start and end).
    const { second, kept } = await stalledTrim(
      a,
      b,
      (kv) =>
        holdFirstList(
          kv,
          (selector, options) =>
            "prefix" in selector && selector.prefix.length === 1 && selector.prefix[0] === LOG &&
            options?.batchSize === undefined && (options?.limit ?? 0) > 1,
        ),
    );
    const page = await second.page({ limit: 100 });
    assert.deepEqual(
      page.values.map((view) => view.id),
      kept.map((view) => view.id).reverse(),
      `the log's page holds ${page.values.length} of the ${RETAIN} newest rows the retention keeps`,
    );
    for (const view of kept) assert.ok(await second.get(view.id), `delivery ${view.id} the retention keeps is gone`);
    assert.equal(await countedRows(b), BigInt(RETAIN), "the log's count is not its rows");
  }));

Deno.test("a trimmer stalled past its lease at its commit does not count the new holder's trimmed rows again", () =>
  withTwoHandles(async (a, b) => {
    // A's first batch commit (it sums the trimmed count; a count sets it) is held until B has trimmed.
    const { second, kept } = await stalledTrim(
      a,
      b,
      (kv) => holdFirst(kv, (key, mutation) => mutation === "sum" && key[0] === TRIMMED[0]),
    );
    const page = await second.page({ limit: 100 });
    assert.equal(page.values.length, RETAIN);
    assert.deepEqual(page.values.map((view) => view.id), kept.map((view) => view.id).reverse());
    const counted = await countedRows(b);
    assert.equal(
      counted,
      BigInt(RETAIN),
      `the trimmer counts ${counted} rows in a log of ${RETAIN}: it would let the log grow past its retention`,
    );
  }));
