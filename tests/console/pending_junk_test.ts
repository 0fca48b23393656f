// A pending sign-in, as KV keeps it, edited by hand (or left by a bad write) into junk while the browser is at the
// provider: its `state` kept, its other fields of the wrong type, a return page off the console, a save time that
// is no time or lies far in the future. The callback signs nobody in from it: it answers the sign-in page's error,
// never a 500, never a redirect off the console. The pending sign-in as the console made it still signs in.

import assert from "node:assert/strict";
import { oauthStateKey } from "../../console/lib/kv_keys.ts";
import { approveConsent, Client, startConsole } from "./_helpers.ts";

const FAR = Date.now() + 1000 * 24 * 3600_000;
const JUNK: Record<string, unknown>[] = [
  { kind: 5 },
  { kind: "community" },
  { codeVerifier: 5 },
  { codeVerifier: null },
  { returnTo: 5 },
  { returnTo: "https://elsewhere.example/" },
  { returnTo: "//elsewhere.example/" },
  { savedAt: "x" },
  { savedAt: FAR },
  { savedAt: null },
  { tenantId: {} },
];

/** Starts a sign-in as `client`, edits its pending entry by `over` (none: as made), and follows it back. */
async function signInOver(client: Client, t: { kv: Deno.Kv }, over?: Record<string, unknown>): Promise<Response> {
  const login = await client.fetch("/auth/login?returnTo=/");
  const id = client.cookies.get("cw_oauth") ?? "";
  const entry = await t.kv.get<Record<string, unknown>>(oauthStateKey(id));
  assert.ok(entry.value, "the pending sign-in is kept under its cookie's id");
  if (over) await t.kv.set(oauthStateKey(id), { ...entry.value, ...over });
  const back = await approveConsent(client, login);
  const callback = back.headers.get("location")!;
  await back.body?.cancel();
  return await client.fetch(callback);
}

Deno.test("a pending sign-in edited into junk signs nobody in, and leads to no other site", async () => {
  const t = await startConsole();
  try {
    for (const over of JUNK) {
      const client = new Client(t.origin);
      const done = await signInOver(client, t, over);
      const body = await done.text();
      assert.equal(done.status, 302, `callback over ${JSON.stringify(over)}: ${body.slice(0, 200)}`);
      assert.equal(done.headers.get("location"), "/signin?error=1", `callback over ${JSON.stringify(over)}`);
      assert.ok(!client.cookies.has("cw_session"), `a session from ${JSON.stringify(over)}`);
    }
    const client = new Client(t.origin);
    const done = await signInOver(client, t);
    await done.body?.cancel();
    assert.equal(done.headers.get("location"), "/", "the pending sign-in as made still signs in");
    assert.ok(client.cookies.has("cw_session"));
  } finally {
    await t.close();
  }
});
