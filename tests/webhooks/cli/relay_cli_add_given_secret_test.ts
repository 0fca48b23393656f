// `relay add --print-secret` prints the secret generated for the destination, the one nobody else was given: a
// WEBHOOK_SECRET (or --secret) given is the operator's own, which they have, and is never printed, even with
// --print-secret left in a script (docs/cli.md: "a generated secret printed once on stderr with --print-secret").
// Run in process through `main` on a real KV file.

import assert from "node:assert/strict";
import { noSecret, withDeadLetters } from "./_relay_setup.ts";

const SECRET = "whsec_" + btoa("an app's secret of 32 bytes here");

Deno.test("cli relay add --print-secret with WEBHOOK_SECRET or --secret prints no secret: the one given is used", async () => {
  await withDeadLetters(0, async ({ run, relay, kv }) => {
    const given: Array<[string[], Record<string, string>]> = [
      [["--url", "https://app.example/env", "--print-secret"], { WEBHOOK_SECRET: SECRET }],
      [["--url", "https://app.example/flag", "--print-secret", "--secret", SECRET, "--json"], {}],
    ];
    for (const [flags, env] of given) {
      const ran = await run(["relay", "add", ...flags], env);
      assert.equal(ran.code, 0, ran.err);
      noSecret(ran, SECRET);
      const url = flags[1];
      const added = (await relay.destinations.list()).find((d) => d.url === url);
      const stored = await kv.get<{ secret: string }>(["relay_destination", added!.id]);
      assert.equal(stored.value?.secret, SECRET, "the secret given is the destination's");
    }
  });
});
