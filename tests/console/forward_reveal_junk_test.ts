// A destination's secret, kept in KV for the one page its Add redirects to, edited by hand (or left by a bad write)
// into junk: a number, an object, null, an empty string, text that is no signing secret. That page shows no junk as
// the secret to copy (an app given "5" would refuse every forward); it says the secret is not shown, as when it was
// shown already. A reveal kept as made still shows its secret.

import assert from "node:assert/strict";
import { forwardRevealPrefix } from "../../console/lib/kv_keys.ts";
import { type Client, csrfOf, withSignedInHook } from "./_helpers.ts";

const JUNK: unknown[] = [5, { a: 1 }, null, "", "not-a-secret", ["whsec_x"], true];

/** Adds a destination at `url` without following the redirect; resolves with the reveal page's address. */
async function add(client: Client, path: string, url: string): Promise<string> {
  const added = await client.post(path, { _csrf: csrfOf(await client.text(path, 200)), url });
  await added.body?.cancel();
  assert.equal(added.status, 303);
  return added.headers.get("location")!;
}

Deno.test("a destination's kept secret edited into junk is not shown as the secret to copy", async () => {
  await withSignedInHook({}, async ({ t, client, hookId }) => {
    const path = `/webhooks/${hookId}/forward`;
    const prefix = forwardRevealPrefix(client.cookies.get("cw_session")!);
    for (const [i, secret] of JUNK.entries()) {
      const location = await add(client, path, `https://app${i}.example/in`);
      const key = [...prefix, new URL(location, t.origin).searchParams.get("reveal")!];
      const kept = (await t.kv.get<Record<string, unknown>>(key)).value;
      assert.ok(kept, "the reveal waits under the session");
      await t.kv.set(key, { ...kept, secret });
      const page = await client.text(location, 200);
      assert.doesNotMatch(page, /It is shown this once/, `the page shows the secret ${JSON.stringify(secret)}`);
      assert.match(page, /id="forward-secret-gone"\s*>/, `the page over the secret ${JSON.stringify(secret)}`);
    }
    const page = await client.text(await add(client, path, "https://kept.example/in"), 200);
    assert.match(page, /It is shown this once/);
    assert.match(page, /whsec_/);
  });
});
