// A sign-in callback whose link is malformed (a parameter given twice: the link was edited, or pasted twice) was
// logged as "The provider's answer was not understood": the provider answered nothing, the link back to the console
// was at fault, and the line should say so and what was wrong with it.

import assert from "node:assert/strict";
import { Client, startConsole } from "./_helpers.ts";
import { warningsOf } from "./_warnings.ts";

Deno.test("a sign-in callback with a parameter given twice is logged as a link not valid, naming the parameter", async () => {
  const t = await startConsole();
  try {
    for (const twice of ["code", "state"]) {
      const client = new Client(t.origin);
      const login = await client.fetch("/auth/login?returnTo=/");
      const state = new URL(login.headers.get("location")!).searchParams.get("state")!;
      await login.body?.cancel();
      const query = new URLSearchParams({ code: "the-code", state });
      query.append(twice, twice === "code" ? "another-code" : state);
      const warnings = await warningsOf(async () => {
        const res = await client.fetch(`/auth/callback?${query}`);
        await res.body?.cancel();
        assert.equal(res.status, 302);
        assert.equal(res.headers.get("location"), "/signin?error=1");
      });
      assert.equal(warnings.length, 1, warnings.join("\n"));
      assert.doesNotMatch(warnings[0], /answer was not understood/, warnings[0]);
      assert.match(warnings[0], /^Sign-in failed: The link back from the provider is not valid/, warnings[0]);
      assert.match(warnings[0], new RegExp(`"${twice}" parameter must be provided only once`), warnings[0]);
      assert.ok(!warnings[0].includes("the-code") && !warnings[0].includes(state), "a value of the link was logged");
    }
  } finally {
    await t.close();
  }
});
