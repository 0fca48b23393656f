/**
 * Sign-ins that overlap in one browser (two tabs sent to sign-in when a
 * session ended, say), and a callback the user never asked for: each
 * sign-in the user approves completes, whichever started last, and a
 * callback with a state of no sign-in of this browser spends none.
 */

import assert from "node:assert/strict";
import { approveConsent, Client, startConsole } from "./_helpers.ts";

/** Approves `login` (the answer of `/auth/login`) and follows the provider back to the console's callback. */
async function complete(client: Client, login: Response): Promise<Response> {
  const back = await approveConsent(client, login);
  const callback = back.headers.get("location")!;
  await back.body?.cancel();
  const done = await client.fetch(callback);
  await done.body?.cancel();
  return done;
}

Deno.test("two sign-ins started at once in one browser both complete, whichever is approved first", async () => {
  const t = await startConsole();
  try {
    const client = new Client(t.origin);
    const first = await client.fetch("/auth/login?returnTo=/communities");
    const second = await client.fetch("/auth/login?returnTo=/webhooks");
    const one = await complete(client, first);
    assert.equal(one.status, 302);
    assert.equal(one.headers.get("location"), "/communities", "the first tab is signed in where it was going");
    assert.equal((await client.fetch("/communities")).status, 200);
    const two = await complete(client, second);
    assert.equal(two.headers.get("location"), "/webhooks", "and so is the second");
    assert.equal((await client.fetch("/webhooks")).status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("a sign-in callback with a state of no sign-in of this browser leaves the sign-in in progress to complete", async () => {
  const t = await startConsole();
  try {
    const client = new Client(t.origin);
    const login = await client.fetch("/auth/login?returnTo=/communities");
    // Another site sends the browser to the callback (a top-level GET carries SameSite=Lax cookies).
    const forged = await client.fetch("/auth/callback?state=forged&code=forged");
    await forged.body?.cancel();
    assert.equal(forged.headers.get("location"), "/signin?error=1");
    assert.equal(client.cookies.has("cw_session"), false);
    const done = await complete(client, login);
    assert.equal(done.headers.get("location"), "/communities");
    assert.equal((await client.fetch("/communities")).status, 200);
  } finally {
    await t.close();
  }
});
