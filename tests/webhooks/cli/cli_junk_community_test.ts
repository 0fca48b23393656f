// A community's record edited by hand into junk (not an object, an object of another shape, another tenant's
// record): `communities add` of that tenant stores the community over it, as it would over none, and leaves every
// other community (and its name) as it is.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { endedCleanly, runMain } from "./_relay_setup.ts";

const OTHER = { name: "Other", tenantId: "t9", baseUrl: "https://other.example" };
const JUNK: unknown[] = [5, null, "x", [1], { a: 1 }, 10n, new Deno.KvU64(5n), { ...OTHER }, { name: 7 }];

Deno.test("communities add over a junk record of its tenant stores the community and keeps the others", async () => {
  for (const junk of JUNK) {
    const dir = await Deno.makeTempDir({ prefix: "cli_junk_community_" });
    const path = `${dir}/webhooks.kv`;
    const kv = await Deno.openKv(path);
    try {
      const { communities } = createWebhooks(kv);
      await communities.save(OTHER);
      await kv.set(["community", "t1"], junk);
      const argv = ["communities", "add", "--name", "Acme", "--tenant", "t1", "--base-url", "https://acme.example"];
      const ran = await runMain([...argv, "--kv", path]);
      const what = `${endedCleanly(argv, ran)} over ${String(junk)}`;
      assert.equal(ran.code, 0, `${what}: ${ran.err}`);
      assert.equal((await communities.findByName("Acme"))?.baseUrl, "https://acme.example", what);
      assert.equal((await communities.findByName("Other"))?.tenantId, "t9", what);
    } finally {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    }
  }
});
