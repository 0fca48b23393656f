// What a community's fixes changed, kept in KV for the session's next page, edited by hand (or left by a bad write)
// into junk: a number, a string, a list, counts that are missing, negative, fractional or text. The reconcile page
// after the fixes still answers, and says the fixes are applied without "undefined", "NaN" or "[object Object]".

import assert from "node:assert/strict";
import fc from "fast-check";
import { reconcileChangesKey } from "../../console/lib/kv_keys.ts";
import { withSignedIn } from "./_helpers.ts";

const GOOD = { adopted: 1, removed: 0, cleared: 2, deleted: 0 };
const JUNK: unknown[] = [
  0,
  5,
  true,
  "x",
  [],
  [1, 2],
  {},
  { ...GOOD, adopted: "x" },
  { ...GOOD, removed: null },
  { ...GOOD, cleared: -1 },
  { ...GOOD, deleted: 1.5 },
  { ...GOOD, adopted: NaN },
  { ...GOOD, adopted: { n: 1 } },
  ...fc.sample(fc.anything(), { numRuns: 20, seed: 65 }).filter((v) => v !== null),
];

Deno.test("kept reconcile changes edited into junk: the page after the fixes says they are applied, no junk", async () => {
  await withSignedIn({}, async ({ t, client }) => {
    const key = reconcileChangesKey(client.cookies.get("cw_session")!, "sandbox-tenant");
    const path = "/communities/sandbox-tenant/reconcile?notice=fixed";
    for (const value of JUNK) {
      const shown = JSON.stringify(value)?.slice(0, 100);
      await t.kv.set(key, value);
      const page = await client.text(path, 200);
      assert.match(page, /The fixes are applied/, `the notice over ${shown}`);
      const text = page.replace(/<[^>]*>/g, " ");
      assert.doesNotMatch(text, /undefined|NaN|\[object Object\]/, `the notice over ${shown}`);
    }
    await t.kv.set(key, GOOD);
    assert.match(await client.text(path, 200), /1 hook adopted, 0 dangling records removed, 2 abandoned registrations/);
  });
});
