// `communities show NAME` of a community record edited by hand so that a field has the wrong type (a base URL that
// is an object, a client secret that is a number, tokens that are a string) printed the record as whole, "client
// secret none" and a blank base URL, exit 0: an operator (or a script reading --json) is told the community merely
// has no secret. It must fail (status 1, nothing on stdout) naming what is damaged, as `communities list` shows it,
// and say how to repair it; the KV stays as it was, and `communities add` of the fields named repairs it.

import assert from "node:assert/strict";
import { cli } from "./_cli_setup.ts";
import { snapshot } from "./_relay_setup.ts";

Deno.test("cli communities show of a damaged record fails naming what is damaged, and add repairs it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_show_damaged_" });
  const path = `${dir}/webhooks.kv`;
  try {
    const kv = await Deno.openKv(path);
    await kv.set(["community", "t2"], { name: "Bee", tenantId: "t2", baseUrl: { x: 1 }, clientSecret: 5 });
    await kv.set(["community_by_name", "Bee"], "t2");
    const before = await snapshot(kv);
    kv.close();
    for (const json of [[], ["--json"]]) {
      const ran = await cli(["communities", "show", "Bee", ...json, "--kv", path]);
      const what = `${json}: ${ran.stdout}${ran.stderr}`;
      assert.equal(ran.code, 1, what);
      assert.equal(ran.stdout, "", what);
      assert.match(ran.stderr, /^Error: .*'Bee'.* is damaged: .*'baseUrl'.*'clientSecret'.*communities add/, what);
      assert.doesNotMatch(ran.stderr, /\n\s+at |Uncaught|\[object Object\]/, what);
    }
    const after = await Deno.openKv(path);
    assert.deepEqual(await snapshot(after), before, "show changed stored data");
    after.close();

    const fixed = await cli([
      "communities",
      "add",
      "--name",
      "Bee",
      "--tenant",
      "t2",
      "--base-url",
      "https://bee.example",
      "--client-secret",
      btoa("a new client secret of 32 bytes!"),
      "--kv",
      path,
    ]);
    assert.equal(fixed.code, 0, fixed.stderr);
    const shown = await cli(["communities", "show", "Bee", "--json", "--kv", path]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(JSON.parse(shown.stdout).baseUrl, "https://bee.example");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
