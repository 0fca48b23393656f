// Secrets compared in constant time are still compared whole: a CSRF token or an OAuth state that differs from the
// session's only before its last character is refused like any other wrong one.

import assert from "node:assert/strict";
import { SessionStore } from "../../console/lib/session.ts";
import { signInAtForm, startConsole } from "./_helpers.ts";

/** `token` with its character at `at` replaced by another one of the base64url alphabet. */
function changedAt(token: string, at: number): string {
  return token.slice(0, at) + (token[at] === "A" ? "B" : "A") + token.slice(at + 1);
}

Deno.test("a form whose CSRF token differs from the session's before its last character is refused", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
    const fields = { name: "Acme", tenantId: "acme", baseUrl: "https://acme.example" };
    for (const at of [0, Math.floor(csrf.length / 2), csrf.length - 2]) {
      const res = await client.post("/communities", { ...fields, _csrf: changedAt(csrf, at) });
      await res.body?.cancel();
      assert.equal(res.status, 403, `a token changed at ${at} was taken`);
    }
    assert.equal(await t.app.webhooks.communities.findByTenantID("acme"), null, "nothing is saved");
  } finally {
    await t.close();
  }
});

Deno.test("a callback whose state differs from the pending one's before its last character takes nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = new SessionStore(kv, 60_000);
    const state = "s".repeat(20) + "Z";
    const id = await store.savePending({ kind: "signin", codeVerifier: "v", state, returnTo: "/" });
    assert.equal(await store.takePending(id, "t" + state.slice(1)), null, "a state changed at its start was taken");
    assert.notEqual(await store.takePending(id, state), null, "its own state still takes it");
  } finally {
    kv.close();
  }
});
