// Sign-in, sign-out, a community's Connect and the rate limits behind one address in front of two console processes
// on one KV (tests/console/_balanced.ts): each step of a flow answered by the process the proxy picks, not the one
// that answered the step before.

import assert from "node:assert/strict";
import { startBalanced } from "./_balanced.ts";
import { approveConsent, Client, connectSandbox, csrfOf, signIn } from "./_helpers.ts";

/** Reads an event stream until `pattern` shows; resolves with what it read. */
async function readUntil(reader: ReadableStreamDefaultReader<string>, pattern: RegExp): Promise<string> {
  let text = "";
  while (!pattern.test(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  return text;
}

Deno.test("sign-in started on one console completes on the other; its callback sent again signs nobody in", async () => {
  await using lb = await startBalanced();
  const client = new Client(lb.origin);
  lb.next("A");
  const login = await client.fetch("/auth/login?returnTo=/webhooks");
  const back = await approveConsent(client, login);
  const callback = back.headers.get("location")!;
  await back.body?.cancel();
  const before = new Map(client.cookies);
  lb.next("B");
  const done = await client.fetch(callback);
  await done.body?.cancel();
  assert.equal(done.status, 302);
  assert.equal(done.headers.get("location"), "/webhooks");
  assert.ok(client.cookies.has("cw_session"));
  // The same callback (its pending cookie as it was) on the first console: the authorization is taken already.
  const replay = new Client(lb.origin);
  for (const [name, value] of before) replay.cookies.set(name, value);
  lb.next("A");
  const again = await replay.fetch(callback);
  await again.body?.cancel();
  assert.equal(again.headers.get("location"), "/signin?error=1");
  assert.ok(!replay.cookies.has("cw_session"), "the callback sent again made a session");
  lb.next("A");
  assert.equal((await client.fetch("/webhooks")).status, 200, "the first sign-in's session works on the other");
  assert.ok(new Set(lb.served.map((s) => s.side)).size === 2);
});

Deno.test("signed out on one console, the session is dead on the other, its live view too", async () => {
  await using lb = await startBalanced();
  const client = await signIn(lb.origin);
  const session = client.cookies.get("cw_session")!;
  lb.next("B");
  const live = await client.fetch("/deliveries/events");
  assert.equal(live.status, 200);
  const reader = live.body!.pipeThrough(new TextDecoderStream()).getReader();
  assert.match(await readUntil(reader, /event: ready/), /event: ready/);
  lb.next("A");
  const csrf = csrfOf(await client.text("/", 200));
  lb.next("A");
  const out = await client.post("/signout", { _csrf: csrf });
  await out.body?.cancel();
  assert.equal(out.headers.get("location"), "/signin?notice=signedout");
  client.cookies.set("cw_session", session); // a copy of the cookie kept elsewhere
  lb.next("B");
  const after = await client.fetch("/");
  await after.body?.cancel();
  assert.equal(after.status, 302);
  assert.match(after.headers.get("location") ?? "", /^\/signin\?/);
  // The stream on the other console ends at its next check of the session, made with its ping every 10 s: read to its
  // end (30 s at most, a hang made a failure), it holds the one ping of that check at most.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const rest = await Promise.race([
    readUntil(reader, /(?!)/), // a pattern that never shows: to the end
    new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), 30_000)),
  ]);
  clearTimeout(timer);
  if (rest === null) await reader.cancel();
  assert.ok(rest !== null, "the live view of the session signed out on the other console is still open");
  const pings = rest.match(/^event: ping$/gm) ?? [];
  assert.ok(pings.length <= 1, `the live view outlived a check of its session: ${rest}`);
});

Deno.test("a community's Connect started on one console completes on the other", async () => {
  await using lb = await startBalanced();
  const client = await signIn(lb.origin);
  lb.route((_method, path) => path.startsWith("/auth/community/callback") ? "B" : "A");
  await connectSandbox(client, lb.origin);
  const steps = lb.served.filter((s) => /^\/(communities|auth\/community)/.test(s.path)).map((s) => s.side);
  assert.deepEqual(steps.slice(-2), ["A", "B"]);
});

Deno.test("the rate limits are counted in KV: behind two consoles the limit is N, not N per process", async () => {
  await using lb = await startBalanced({ RATE_LIMIT_SIGNIN: "4", RATE_LIMIT_FORMS: "3" });
  const logins: number[] = [];
  for (let i = 0; i < 6; i++) {
    const res = await new Client(lb.origin).fetch("/auth/login?returnTo=/");
    await res.body?.cancel();
    logins.push(res.status);
  }
  assert.deepEqual(logins, [302, 302, 302, 302, 429, 429]);
  assert.deepEqual(lb.served.slice(0, 6).map((s) => s.side), ["A", "B", "A", "B", "A", "B"]);
});

Deno.test("a session's form posts are limited across both consoles", async () => {
  await using lb = await startBalanced({ RATE_LIMIT_FORMS: "3" });
  const client = await signIn(lb.origin);
  const csrf = csrfOf(await client.text("/communities/new", 200));
  const statuses: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await client.post("/communities", { _csrf: csrf, name: "", tenantId: "", baseUrl: "" });
    await res.body?.cancel();
    statuses.push(`${lb.served.at(-1)!.side}${res.status === 429 ? 429 : "ok"}`);
  }
  assert.deepEqual(statuses.map((s) => s.slice(1)), ["ok", "ok", "ok", "429"]);
  assert.equal(new Set(statuses.map((s) => s[0])).size, 2, statuses.join(" "));
});
