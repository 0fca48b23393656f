// Bearer ids at rest: whoever reads the console's KV (a backup, a KV Connect token, a copied file) finds in it no
// session id, OAuth state id, draft id or draft cookie, so the KV alone signs in as nobody; the cookie alone still
// opens its session. A session the previous version kept under its raw id keeps working (moved once to the hashed
// key), and a key read out of the KV, sent as a cookie, opens nothing.

import assert from "node:assert/strict";
import { Client, csrfOf, NO_RATE_LIMITS, signIn, startConsole, withSignedInHook } from "./_helpers.ts";

/** Every key part and value of the KV, as text. */
async function dump(kv: Deno.Kv): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of kv.list({ prefix: [] })) {
    for (const part of entry.key) out.push(String(part));
    out.push(JSON.stringify(entry.value, (_k, v) => typeof v === "bigint" ? String(v) : v));
  }
  return out;
}

/** Fails when `secret` (named `what`) is within any key part or value of the KV. */
async function assertNowhere(kv: Deno.Kv, secret: string, what: string): Promise<void> {
  assert.ok(secret.length >= 20, `${what} is a real id`);
  const found = (await dump(kv)).filter((text) => text.includes(secret));
  assert.equal(found.length, 0, `${what} is kept at rest in ${found.length} KV key part(s) or value(s)`);
}

/**
 * Adds a destination on `hookId`'s Forward to page as `client`, not following the redirect: its secret's reveal stays
 * waiting in KV under the session. Resolves with the page's path and where the redirect leads (the reveal).
 */
async function addLeavingReveal(client: Client, hookId: string): Promise<{ path: string; location: string }> {
  const path = `/webhooks/${hookId}/forward`;
  const added = await client.post(path, { _csrf: csrfOf(await client.text(path, 200)), url: "https://app.example/in" });
  await added.body?.cancel();
  assert.equal(added.status, 303);
  return { path, location: added.headers.get("location")! };
}

Deno.test("the KV holds no session id, OAuth state id, draft id or reveal's session id; the cookie still works", async () => {
  await withSignedInHook({}, async ({ t, client, hookId }) => {
    // A pending sign-in: its state id is the cw_oauth cookie.
    const other = new Client(t.origin);
    const login = await other.fetch("/auth/login?returnTo=/");
    await login.body?.cancel();
    const stateId = other.cookies.get("cw_oauth") ?? "";
    await assertNowhere(t.kv, stateId, "the OAuth state id");

    // A reveal waiting for its page, under the session that added the destination.
    const sessionId = client.cookies.get("cw_session") ?? "";
    const { path, location } = await addLeavingReveal(client, hookId);
    await assertNowhere(t.kv, sessionId, "the session id");

    // A draft kept for a form sent without a session: its id in the address, its owner in the cw_draft cookie.
    const stranger = new Client(t.origin);
    const forged = await stranger.post(path, { _csrf: "x", url: "https://kept.example/in" });
    await forged.body?.cancel();
    const returnTo = new URL(forged.headers.get("location")!, t.origin).searchParams.get("returnTo")!;
    const draftId = new URL(returnTo, t.origin).searchParams.get("draft") ?? "";
    await assertNowhere(t.kv, draftId, "the draft id");
    await assertNowhere(t.kv, stranger.cookies.get("cw_draft") ?? "", "the draft cookie");

    // The cookie alone still opens the session and the reveal, and sign-out ends it.
    const page = await client.text(location, 200);
    assert.match(page, /whsec_/, "the reveal shows its secret to its session");
    const res = await client.post("/signout", { _csrf: csrfOf(await client.text("/", 200)) });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    client.cookies.set("cw_session", sessionId);
    const after = await client.fetch("/");
    await after.body?.cancel();
    assert.equal(after.status, 302, "a signed-out session still opens pages");
  });
});

Deno.test("a session kept under its raw id by the previous version still works, moved once; sign-out ends it", async () => {
  const t = await startConsole();
  try {
    const rawId = "legacy_session_id_0123456789abcdefghijklmno"; // 43 characters, as the old ids
    const session = {
      user: { sub: "old-user", name: "Old User" },
      csrf: "c".repeat(43),
      createdAt: new Date().toISOString(),
    };
    await t.kv.set(["console_session", rawId], session, { expireIn: 60 * 60_000 });
    const client = new Client(t.origin);
    client.cookies.set("cw_session", rawId);
    const html = await client.text("/", 200);
    assert.match(html, /Old User/);
    await assertNowhere(t.kv, rawId, "the old session's id");
    assert.equal((await client.fetch("/communities")).status, 200, "the moved session opens the next page");
    const res = await client.post("/signout", { _csrf: csrfOf(html) });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    const keys = await Array.fromAsync(t.kv.list({ prefix: ["console_session"] }));
    assert.equal(keys.length, 0, "sign-out leaves the session in KV");
  } finally {
    await t.close();
  }
});

Deno.test("a session's key read out of the KV, sent as a cookie, opens nothing", async () => {
  const t = await startConsole();
  try {
    await signIn(t.origin);
    const [entry] = await Array.fromAsync(t.kv.list({ prefix: ["console_session"] }));
    assert.ok(entry, "a session is kept");
    const thief = new Client(t.origin);
    thief.cookies.set("cw_session", String(entry.key[1]));
    const res = await thief.fetch("/");
    await res.body?.cancel();
    assert.equal(res.status, 302, "the KV's key opened the session");
  } finally {
    await t.close();
  }
});

Deno.test("the form rate limit counts a session under its id's hash, and its page still shows the count", async () => {
  const rateLimits = { ...NO_RATE_LIMITS, forms: { limit: 50, windowMs: 3600_000 } };
  await withSignedInHook({ rateLimits }, async ({ t, client, hookId }) => {
    await addLeavingReveal(client, hookId);
    await assertNowhere(t.kv, client.cookies.get("cw_session") ?? "", "the session id");
    const counted = await Array.fromAsync(t.kv.list<number>({ prefix: ["console_rate", "forms"] }));
    assert.equal(counted.length, 1, "one count of form posts, for the one session");
    const left = Number(
      /id="limit-forms".*?class="left">(\d+)</s.exec(await client.text(`/webhooks/${hookId}`, 200))?.[1],
    );
    assert.equal(left, 50 - counted[0].value!, "the page shows what the limiter counted for this session");
  });
});
