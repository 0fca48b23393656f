// `communities show --json` carries what its table shows: while a replaced
// client secret is still accepted, `secretRotation` (when rotated, until when
// the previous one verifies), as `communities add --json` does; none once the
// previous secret is revoked. No secret is printed.

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli/mod.ts";
import { SECRET_A } from "../_receiver.ts";

const SECOND = btoa("community A's second secret, 32b");

Deno.test("cli communities show --json says until when the previous client secret is accepted, as its table does", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_show_rotation_" });
  try {
    const path = `${dir}/webhooks.kv`;
    const out: string[] = [];
    const err: string[] = [];
    const run = async (argv: string[], secret?: string): Promise<string> => {
      out.length = 0;
      const env = (name: string) => name === "CLIENT_SECRET" ? secret : undefined;
      assert.equal(
        await main([...argv, "--kv", path], { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env }),
        0,
      );
      return out.join("\n");
    };
    const add = ["communities", "add", "--name", "A", "--tenant", "tenant-a", "--base-url", "https://a.example"];
    await run(add, SECRET_A);
    const show = ["communities", "show", "A", "--json"];
    assert.equal(JSON.parse(await run(show)).secretRotation, undefined, "no rotation yet");

    const added = JSON.parse(await run([...add, "--json"], SECOND));
    assert.ok(added.secretRotation, "add --json says the rotation");
    assert.match(await run(["communities", "show", "A"]), /\nsecret rotated\s+\d{4}-/);
    const shown = JSON.parse(await run(show));
    assert.deepEqual(shown.secretRotation, added.secretRotation);
    assert.equal(shown.hasClientSecret, true);

    await run(["communities", "revoke-previous-secret", "A"]);
    assert.equal(JSON.parse(await run(show)).secretRotation, undefined, "none once revoked");
    for (const secret of [SECRET_A, SECOND]) {
      assert.ok(!out.join("").includes(secret) && !err.join("").includes(secret), "a secret was printed");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
