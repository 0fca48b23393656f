// A session's KV entry edited by hand (or left by a bad write) into junk: a number, a string, an object of the wrong
// shape, a CSRF token that is no string, a creation time that is no time or lies far in the future. The cookie that
// names it opens no page (it is sent to sign in, never a 500, never signed in for good), and no form is accepted
// with it; a good session beside it still works.

import assert from "node:assert/strict";
import fc from "fast-check";
import { sessionKey } from "../../console/lib/kv_keys.ts";
import { signIn, startConsole } from "./_helpers.ts";

/** Pages a signed-in user opens. */
const PAGES = ["/", "/webhooks/new", "/deliveries", "/communities"];

/** Junk for a session entry, around the real `session` (so that one wrong field is enough). */
function junkOf(session: Record<string, unknown>): unknown[] {
  const far = new Date(Date.now() + 1000 * 24 * 3600_000).toISOString();
  return [
    null,
    0,
    5,
    "x",
    [],
    {},
    { user: null },
    { ...session, user: {} },
    { ...session, user: { sub: 5, name: null } },
    { ...session, csrf: 5 },
    { ...session, csrf: "" },
    { ...session, createdAt: "junk" },
    { ...session, createdAt: 12 },
    { ...session, createdAt: far },
  ];
}

Deno.test("a session entry edited into junk opens no page and accepts no form; a good one still works", async () => {
  const t = await startConsole();
  try {
    const client = await signIn(t.origin);
    const good = await signIn(t.origin);
    const sid = client.cookies.get("cw_session")!;
    const session = (await t.kv.get<Record<string, unknown>>(sessionKey(sid))).value!;
    const junk = [
      ...junkOf(session),
      ...fc.sample(fc.anything(), { numRuns: 30, seed: 65 }),
      ...fc.sample(fc.record({ user: fc.anything(), csrf: fc.anything(), createdAt: fc.anything() }), {
        numRuns: 20,
        seed: 65,
      }),
    ];
    for (const value of junk) {
      await t.kv.set(sessionKey(sid), value);
      const shown = JSON.stringify(value)?.slice(0, 120);
      for (const path of PAGES) {
        const res = await client.fetch(path);
        await res.body?.cancel();
        assert.equal(res.status, 302, `${path} with the session ${shown}: answered ${res.status}`);
        assert.match(res.headers.get("location") ?? "", /^\/signin\b/, `${path} with the session ${shown}`);
      }
      // A CSRF token kept as the number 5 is no token the form "5" matches.
      const out = await client.post("/signout", { _csrf: "5" });
      await out.body?.cancel();
      assert.notEqual(out.status, 500, `sign-out with the session ${shown}`);
      const page = await good.fetch("/");
      await page.body?.cancel();
      assert.equal(page.status, 200, "a good session beside the junk one still opens pages");
    }
  } finally {
    await t.close();
  }
});
