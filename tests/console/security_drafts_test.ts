// A form kept after its session ended comes back only to the browser that
// sent it: anyone can post a form naming the console's origin (a script sets
// Origin), and a victim sent the link it answers with must not find a page
// filled in by someone else and told "what you typed" (a destination URL of
// the attacker's, one click from receiving every postback).

import assert from "node:assert/strict";
import { parse, withSignedInHook } from "./_helpers.ts";

const ATTACKER_URL = "https://attacker.example/steal";

Deno.test("a form kept without a session fills in no page of another browser that opens its link", async () => {
  await withSignedInHook({}, async ({ t, client, hookId }) => {
    // Not a browser: no cookies, its own Origin header.
    const forged = await fetch(`${t.origin}/webhooks/${hookId}/forward`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: t.origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: "x", url: ATTACKER_URL }),
    });
    await forged.body?.cancel();
    assert.equal(forged.status, 303);
    const returnTo = new URL(forged.headers.get("location")!, t.origin).searchParams.get("returnTo")!;
    assert.match(returnTo, /\?draft=/, "a draft was kept for the sender");
    // The victim, signed in, follows the link it was sent.
    const html = await client.text(returnTo, 200);
    const page = parse(html);
    try {
      assert.ok(!html.includes(ATTACKER_URL), "the page holds the attacker's URL");
      assert.ok(!/form you sent was not saved/.test(page.document.querySelector(".notice")?.textContent ?? ""));
    } finally {
      page.close();
    }
  });
});
