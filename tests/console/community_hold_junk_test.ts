// The hold an add of a community keeps on its tenant id while it runs, edited by hand (or left by a bad write) into
// junk that KV keeps for good: a string, a number, a time long past or far ahead, an object. It is no add in
// progress: Add community saves the community, instead of waiting, then refusing the tenant id for ever.

import assert from "node:assert/strict";
import { addingCommunityKey } from "../../console/lib/kv_keys.ts";
import { parse, signIn, startConsole } from "./_helpers.ts";

const JUNK: unknown[] = ["x", 5, -1, Date.now() - 3600_000, Date.now() + 1000 * 24 * 3600_000, NaN, {}, [], null];

Deno.test("a community add's hold edited into junk holds nothing: Add community saves", async () => {
  const t = await startConsole();
  try {
    const client = await signIn(t.origin);
    for (const [i, value] of JUNK.entries()) {
      const tenantId = `t-junk-${i}`;
      await t.kv.set(addingCommunityKey(tenantId), value);
      const page = parse(await client.text("/communities/new", 200));
      const csrf = page.document.querySelector("form[action='/communities'] input[name=_csrf]")?.getAttribute("value");
      page.close();
      const res = await client.post("/communities", {
        _csrf: csrf ?? "",
        name: `Junk ${i}`,
        tenantId,
        baseUrl: "https://junk.example",
      });
      await res.body?.cancel();
      const shown = typeof value === "number" ? String(value) : JSON.stringify(value);
      assert.equal(res.headers.get("location"), `/communities/${tenantId}?notice=saved`, `over the hold ${shown}`);
      assert.equal((await t.app.webhooks.communities.findByTenantID(tenantId))?.name, `Junk ${i}`);
    }
  } finally {
    await t.close();
  }
});
