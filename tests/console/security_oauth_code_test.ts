// The authorization code of a community's Connect never reaches a page, a
// redirect or KV when its callback arrives after the session ended (the
// consent took longer than the session had left): the sign-in it leads to
// does not carry it.

import assert from "node:assert/strict";
import { approveConsent, Client, startConsole } from "./_helpers.ts";

const CODE = "Code-Never-Shown-4d1f";

Deno.test("a community's callback reached without a session leads to sign-in without its code or state", async () => {
  const t = await startConsole();
  try {
    const client = new Client(t.origin);
    const callback = `/auth/community/callback?code=${CODE}&state=State-Never-Shown`;
    const res = await client.fetch(callback);
    await res.body?.cancel();
    assert.equal(res.status, 302);
    const location = res.headers.get("location")!;
    assert.ok(location.startsWith("/signin?"), location);
    assert.ok(!location.includes(CODE) && !location.includes("State-Never"), location);
    const page = await client.fetch(location);
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.ok(!html.includes(CODE), "the sign-in page does not show the code");
    // Signing in from that page stores no code with the pending authorization, and leads back to the communities.
    const link = new URL(location, t.origin).searchParams.get("returnTo")!;
    const login = await client.fetch(`/auth/login?${new URLSearchParams({ returnTo: link })}`);
    const back = await approveConsent(client, login);
    const done = await client.fetch(back.headers.get("location")!);
    await done.body?.cancel();
    assert.equal(done.status, 302);
    assert.ok(!done.headers.get("location")!.includes(CODE), done.headers.get("location")!);
    for await (const entry of t.kv.list({ prefix: [] })) {
      assert.ok(!JSON.stringify(entry.value ?? null).includes(CODE), `KV ${JSON.stringify(entry.key)} holds the code`);
    }
  } finally {
    await t.close();
  }
});
