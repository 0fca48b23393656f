// `--json` over records edited by hand to hold what JSON cannot (a BigInt, a `Deno.KvU64`, an object inside itself):
// the command still prints one valid JSON document, every record in it, a BigInt as its digits (a KvU64 inside a
// record comes back from KV as an object holding one), and the loop as "[circular]", instead of exiting 1 with
// "Do not know how to serialize a BigInt".

import assert from "node:assert/strict";
import { endedCleanly, runMain } from "./_relay_setup.ts";

const loop: Record<string, unknown> = { a: 1 };
loop.self = loop;
const VALUES: [unknown, unknown][] = [[10n, "10"], [new Deno.KvU64(5n), { value: "5" }], [loop, {
  a: 1,
  self: "[circular]",
}]];
const REF = "https://acme.example/api/core/v3/webhooks/7";

async function withHooks(value: unknown, fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cli_json_junk_" });
  const path = `${dir}/webhooks.kv`;
  const kv = await Deno.openKv(path);
  try {
    const entity = { id: "7", odd: value, resources: { self: { ref: REF } } };
    for (const id of ["h1", "h2"]) {
      const hook = { id, tenantId: "t1", entity: id === "h1" ? entity : { id: "8" }, extra: value };
      await kv.set(["webhook", id], hook);
      await kv.set(["webhook_by_tenant", "t1", id], hook);
    }
    await kv.set(["webhook_by_url", REF, "h1"], (await kv.get(["webhook", "h1"])).value);
    await kv.set(["community", "t1"], { name: "Acme", tenantId: "t1", baseUrl: "https://acme.example", n: value });
    await kv.set(["community_by_name", "Acme"], "t1");
    kv.close();
    await fn(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("--json over records holding a BigInt, a KvU64 or a loop prints one valid document of every record", async () => {
  for (const [value, shown] of VALUES) {
    await withHooks(value, async (path) => {
      const runs: [string[], (doc: unknown) => void][] = [
        [
          ["hooks", "list"],
          (doc) => assert.deepEqual((doc as { extra: unknown }[]).map((h) => h.extra), [shown, shown]),
        ],
        [["hooks", "list", "--tenant", "t1"], (doc) => assert.equal((doc as unknown[]).length, 2)],
        [["hooks", "find", "--id", "h1"], (doc) => assert.deepEqual((doc as { extra: unknown }).extra, shown)],
        [["hooks", "find", "--url", REF], (doc) => assert.equal((doc as unknown[]).length, 1)],
        [["communities", "list"], (doc) => assert.deepEqual((doc as { name: string }[]).map((c) => c.name), ["Acme"])],
      ];
      for (const [words, check] of runs) {
        const argv = [...words, "--json", "--kv", path];
        const ran = await runMain(argv);
        const what = endedCleanly(argv, ran);
        assert.equal(ran.code, 0, `${what}: ${ran.err}`);
        check(JSON.parse(ran.out));
      }
    });
  }
});
