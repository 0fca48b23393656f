// A message of the command line that quotes a name (added, renamed from,
// removed, none so named) shows a line break or ESC in it as an escape, as a
// table does (docs/cli.md, "Output, exit status, secrets"): a stored name
// cannot forge a line of the output, and an error naming one is not cut at its
// line break.

import assert from "node:assert/strict";
import { runAdd } from "./_add_setup.ts";

Deno.test("cli messages that quote a community's name show its control characters as escapes, on one line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_message_escapes_" });
  try {
    const path = `${dir}/webhooks.kv`;
    const run = (argv: string[]) => runAdd(path, argv);
    const add = (
      name: string,
    ) => ["communities", "add", "--name", name, "--tenant", "t1", "--base-url", "https://a.example"];

    const added = await run(add("Acme\nforged line\u001b[2J"));
    assert.equal(added.code, 0, added.err);
    assert.equal(added.out, "Added community 'Acme\\nforged line\\u001b[2J' (tenant t1)");

    const renamed = await run(add("Acme"));
    assert.equal(renamed.out, "Updated community 'Acme' (tenant t1), renamed from 'Acme\\nforged line\\u001b[2J'");

    const missing = await run(["communities", "show", "Ac\nme"]);
    assert.equal(missing.code, 1);
    assert.equal(missing.err, "Error: No community is named 'Ac\\nme'");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
