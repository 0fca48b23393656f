// Forward to's Add is Post/Redirect/Get: the answer to the POST is a redirect to the page, which shows the new
// destination's secret once through a one-time reveal bound to the session that added it. A reload (or Back) of
// that page asks for the page again, never for the POST: it adds nothing, is refused nothing, and shows no secret,
// saying it was shown once and what to do. The secret is in no URL and no cookie, and another session cannot see it.

import assert from "node:assert/strict";
import { createRelay } from "../../webhooks/mod.ts";
import { type Client, csrfOf, parse, signIn, withSignedInHook } from "./_helpers.ts";

/** What a page of Forward to shows: its notice, the secret, the "shown once" sentence, and its destinations. */
function read(html: string): { notice?: string; secret?: string; gone?: string; destinations: number } {
  const page = parse(html);
  try {
    const doc = page.document;
    return {
      notice: doc.querySelector("#page-notice")?.textContent ?? undefined,
      secret: doc.querySelector("#forward-secret")?.textContent ?? undefined,
      gone: doc.querySelector("#forward-secret-gone:not([hidden])")?.textContent ?? undefined,
      destinations: doc.querySelectorAll("#forward-destinations tr[data-destination]").length,
    };
  } finally {
    page.close();
  }
}

/** Adds `url` on `path` as `client`; resolves with the redirect's location and the POST's raw answer. */
async function add(client: Client, path: string, url: string): Promise<{ location: string; raw: string }> {
  const res = await client.post(path, { _csrf: csrfOf(await client.text(path, 200)), url });
  const body = await res.text();
  const raw = `${[...res.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n\n${body}`;
  assert.equal(res.status, 303, `Add answers with a redirect, not the page: ${res.status} ${body.slice(0, 300)}`);
  return { location: res.headers.get("location") ?? "", raw };
}

Deno.test("Forward to's Add redirects to a page showing the secret once; its reload shows none and says so", async () => {
  await withSignedInHook({}, async ({ client, hookId }) => {
    const path = `/webhooks/${hookId}/forward`;
    const { location, raw } = await add(client, path, "https://app.example/in");
    assert.ok(location.startsWith(`${path}?`), location);
    assert.doesNotMatch(raw, /whsec_/, "the POST's answer holds the secret");
    assert.doesNotMatch(location, /whsec_/);

    const first = await client.fetch(location);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("cache-control"), "no-store");
    const shown = read(await first.text());
    assert.equal(shown.notice, "The destination is added.");
    assert.match(shown.secret ?? "", /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(shown.destinations, 1);
    assert.ok(!client.setCookies.some((c) => c.includes(shown.secret!)), "a cookie holds the secret");

    // The same address again (a reload, Back): the page, no secret, and why.
    const again = await client.fetch(location);
    assert.equal(again.status, 200);
    const html = await again.text();
    assert.ok(!html.includes(shown.secret!), "the secret is shown again");
    assert.doesNotMatch(html, /whsec_/);
    const second = read(html);
    assert.match(second.gone ?? "", /shown once/);
    assert.match(second.gone ?? "", /remove it and add it again/i);
    assert.equal(second.destinations, 1, "a reload added or removed a destination");
  });
});

Deno.test("Forward to's reveal of a secret is for the session that added it: another session's link shows none", async () => {
  await withSignedInHook({}, async ({ t, client, hookId }) => {
    const path = `/webhooks/${hookId}/forward`;
    const { location } = await add(client, path, "https://app.example/in");
    const other = await signIn(t.origin);
    const theirs = await other.fetch(location);
    assert.equal(theirs.status, 200);
    const seen = await theirs.text();
    assert.doesNotMatch(seen, /whsec_/, "another session saw the secret");
    assert.match(read(seen).gone ?? "", /shown once/);
    // Their look took nothing: the session that added it sees its secret still.
    assert.match(read(await client.text(location, 200)).secret ?? "", /^whsec_/);
  });
});

Deno.test("Forward to's reveal names one secret: a reveal token made up or changed shows none", async () => {
  await withSignedInHook({}, async ({ client, hookId }) => {
    const path = `/webhooks/${hookId}/forward`;
    const { location } = await add(client, path, "https://app.example/in");
    const url = new URL(location, "http://x");
    const token = [...url.searchParams.values()].find((v) => v.length >= 20) ?? "";
    assert.ok(token, `the address names a reveal token: ${location}`);
    // One character changed: never the one it was (a token ending in "A" made "A" again, 1 run in 64).
    const changed = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    for (const made of [changed, "x", "a".repeat(5_000)]) {
      const html = await client.text(location.replace(token, encodeURIComponent(made)), 200);
      assert.doesNotMatch(html, /whsec_/, made.slice(0, 40));
    }
    // Another hook's page does not show this hook's secret either.
    const elsewhere = await client.fetch(location.replace(`/webhooks/${hookId}/`, "/webhooks/no-such-hook/"));
    assert.doesNotMatch(await elsewhere.text(), /whsec_/);
    assert.match(read(await client.text(location, 200)).secret ?? "", /^whsec_/);
  });
});

Deno.test("Forward to's Add adds nothing when the KV cannot keep the secret for the page that shows it", async () => {
  await withSignedInHook({}, async ({ t, client, hookId }) => {
    const path = `/webhooks/${hookId}/forward`;
    const csrf = csrfOf(await client.text(path, 200));
    // Kept first (a destination whose secret nobody can be shown is no use): every write of a reveal fails.
    const [set, atomic] = [t.kv.set, t.kv.atomic];
    const reveal = (key: Deno.KvKey) => key[0] === "console_forward_reveal";
    t.kv.set = ((key: Deno.KvKey, value: unknown, options?: { expireIn?: number }) => {
      if (reveal(key)) throw new Error("the KV failed");
      return set.call(t.kv, key, value, options);
    }) as Deno.Kv["set"];
    t.kv.atomic = () => {
      const op = atomic.call(t.kv);
      const opSet = op.set.bind(op);
      op.set = (key, value, options) => {
        if (reveal(key)) throw new Error("the KV failed");
        return opSet(key, value, options);
      };
      return op;
    };
    const res = await client.post(path, { _csrf: csrf, url: "https://app.example/in" });
    Object.assign(t.kv, { set, atomic });
    const body = await res.text();
    assert.doesNotMatch(body, /whsec_/);
    assert.ok(res.status >= 500, `answered ${res.status}`);
    const relay = createRelay(t.kv);
    assert.equal((await relay.destinations.list()).length, 0, "a destination whose secret nobody saw was added");
    await relay.close();
  });
});
