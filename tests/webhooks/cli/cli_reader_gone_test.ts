// The command line whose stdout's reader went away (`deno task cli hooks list
// | head -1`, `grep -m1`, a pager quit): the command stops writing, says
// nothing about it and ends with status 0 (the reader chose to stop, as with
// ripgrep). `receive` answers the postback it could not print with a 500 (the
// platform sends it again) and then stops serving, with status 0.

import assert from "node:assert/strict";
import { signJiveExtn } from "../../../webhooks/mod.ts";
import { ACME_HOOK_REF, SECRET, seedAcmeHook, withClosed, withSetup } from "./_cli_setup.ts";
import { startReceive } from "./_receive_child.ts";

Deno.test("cli lists, show, find and --help end quietly with 0 when stdout's reader is gone", async () => {
  await withSetup(async (kv) => {
    await seedAcmeHook(kv);
    for (
      const args of [
        ["hooks", "list"],
        ["hooks", "list", "--json"],
        ["communities", "list"],
        ["communities", "show", "Acme"],
        ["communities", "show", "Acme", "--json"],
        ["hooks", "find", "--id", "h7"],
        ["--help"],
      ]
    ) {
      const { code, other: stderr } = await withClosed("stdout", args[0] === "--help" ? args : [...args, "--kv", kv]);
      // Before: "Error: Broken pipe (os error 32)" on stderr and status 1.
      assert.equal(stderr, "", `${args.join(" ")}: ${stderr}`);
      assert.equal(code, 0, args.join(" "));
    }
  });
});

Deno.test("cli receive whose stdout's reader is gone answers the postback 500 and stops serving, with 0", async () => {
  await withSetup(async (kv) => {
    await seedAcmeHook(kv);
    // Killed after 30 s at the latest: one that serves on (before: it did) then fails on its status, not the runner.
    const { child, url, stderr } = await startReceive(kv, { closeStdout: true, boundMs: 30_000 });
    const authorization = await signJiveExtn(
      { clientId: "client-1", jiveUrl: "https://acme.example", tenantId: "tenant-acme", timestamp: Date.now() },
      SECRET,
    );
    const answer = await fetch(new URL("/hooks", url), {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify([{ webhook: ACME_HOOK_REF, activity: { verb: "jive:created", title: "Hello" } }]),
    });
    await answer.body?.cancel();
    // Not lost: unprinted, it is not taken, and the platform sends it again.
    assert.equal(answer.status, 500);
    const status = await child.status;
    const err = await stderr;
    assert.equal(status.signal, null, `still serving after its stdout was gone: ${err}`);
    assert.equal(status.code, 0, err);
    assert.doesNotMatch(err, /Broken pipe|Uncaught|\n\s+at /, err);
    // Nothing said of the 500 it answered for the line it could not print: the reader chose to stop, as for a list.
    assert.doesNotMatch(err, /\b500\b|consumer threw/i, err);
  });
});
