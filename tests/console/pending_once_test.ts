/**
 * A pending sign-in or Connect (its PKCE verifier and state) is taken once, even by two callbacks at once in two
 * consoles on one KV (a reload during the first load, or two processes behind one address): only one of them may
 * spend the provider's authorization code; a second exchange of one code makes a provider that follows RFC 6749
 * revoke the tokens the first one got.
 */

import assert from "node:assert/strict";
import { SessionStore } from "../../console/lib/session.ts";

Deno.test("a pending authorization taken twice at once by two consoles on one KV goes to one of them", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/console.kv`;
  const one = await Deno.openKv(path);
  const two = await Deno.openKv(path);
  try {
    const first = new SessionStore(one, 60_000);
    const second = new SessionStore(two, 60_000);
    for (let round = 0; round < 5; round++) {
      const pending = { kind: "signin" as const, codeVerifier: `v${round}`, state: `s${round}`, returnTo: "/" };
      const id = await first.savePending(pending);
      const taken = await Promise.all([first.takePending(id, pending.state), second.takePending(id, pending.state)]);
      assert.equal(taken.filter((value) => value !== null).length, 1, `round ${round}: taken by exactly one`);
    }
  } finally {
    one.close();
    two.close();
    await Deno.remove(dir, { recursive: true });
  }
});
