// A community's name pointer (the KV entry that maps its name to its tenant id) edited by hand into junk: the
// commands that look the community up by name say no community has that name, and `communities add` of the same
// community writes the pointer anew, as the library passes junk over everywhere else.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { endedCleanly, runMain } from "./_relay_setup.ts";

const JUNK: unknown[] = [5, "", [1], { a: 1 }, 10n, new Deno.KvU64(5n), "t".repeat(3000)];

async function withJunkPointer(junk: unknown, fn: (path: string, kv: Deno.Kv) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cli_junk_name_" });
  const path = `${dir}/webhooks.kv`;
  const kv = await Deno.openKv(path);
  try {
    await createWebhooks(kv).communities.save({ name: "Acme", tenantId: "t1", baseUrl: "https://acme.example" });
    await kv.set(["community_by_name", "Acme"], junk);
    await fn(path, kv);
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("communities show NAME over a junk name pointer says no community has that name", async () => {
  for (const junk of JUNK) {
    await withJunkPointer(junk, async (path) => {
      const argv = ["communities", "show", "Acme", "--kv", path];
      const ran = await runMain(argv);
      const what = endedCleanly(argv, ran);
      assert.equal(ran.code, 1, what);
      assert.equal(ran.err, "Error: No community is named 'Acme'", `${what} over ${String(junk).slice(0, 20)}`);
    });
  }
});

Deno.test("communities add of the same community over a junk name pointer writes the pointer anew", async () => {
  for (const junk of JUNK) {
    await withJunkPointer(junk, async (path, kv) => {
      const argv = ["communities", "add", "--name", "Acme", "--tenant", "t1", "--base-url", "https://acme.example"];
      const ran = await runMain([...argv, "--kv", path]);
      const what = `${endedCleanly(argv, ran)} over ${String(junk).slice(0, 20)}`;
      assert.equal(ran.code, 0, `${what}: ${ran.err}`);
      assert.equal((await kv.get(["community_by_name", "Acme"])).value, "t1", what);
      assert.equal((await runMain(["communities", "show", "Acme", "--kv", path])).code, 0, what);
    });
  }
});

Deno.test("communities add under a name whose pointer names a tenant with no record takes the name", async () => {
  for (const stale of ["t9", "gone-tenant"]) {
    await withJunkPointer(stale, async (path, kv) => {
      await kv.delete(["community", "t1"]); // and the tenant it once named is gone too: nobody holds "Acme"
      const argv = ["communities", "add", "--name", "Acme", "--tenant", "t2", "--base-url", "https://two.example"];
      const ran = await runMain([...argv, "--kv", path]);
      const what = `${endedCleanly(argv, ran)} over a pointer to ${stale}`;
      assert.equal(ran.code, 0, `${what}: ${ran.err}`);
      assert.equal((await kv.get(["community_by_name", "Acme"])).value, "t2", what);
    });
  }
});
