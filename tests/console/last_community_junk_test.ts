// The community a user last registered a webhook in, as KV keeps it, edited by hand (or left by a bad write) into
// junk: a number, a list, an object, an empty string, a tenant id no longer connected. The register form still
// opens (no community chosen for the user, never a 500), and registering keeps the community used, in its place.

import assert from "node:assert/strict";
import fc from "fast-check";
import { lastCommunityKey } from "../../console/lib/kv_keys.ts";
import { postRegisterForm, withSignedIn } from "./_helpers.ts";

const JUNK: unknown[] = [
  null,
  0,
  5,
  true,
  "",
  "no-such-tenant",
  [],
  ["sandbox-tenant"],
  {},
  { tenantId: "sandbox-tenant" },
  ...fc.sample(fc.anything(), { numRuns: 20, seed: 65 }),
];

Deno.test("a last-used community edited into junk: the register form opens, and registering puts it right", async () => {
  await withSignedIn({}, async ({ t, client }) => {
    for (const value of JUNK) {
      const shown = JSON.stringify(value)?.slice(0, 100);
      await t.kv.set(lastCommunityKey("sandbox-user"), value);
      const page = await client.fetch("/webhooks/new");
      await page.body?.cancel();
      assert.equal(page.status, 200, `/webhooks/new over the last community ${shown}`);
    }
    const res = await postRegisterForm(client, t.origin);
    await res.body?.cancel();
    assert.equal(res.status, 303, "the register form still registers");
    assert.equal((await t.kv.get(lastCommunityKey("sandbox-user"))).value, "sandbox-tenant");
  });
});
