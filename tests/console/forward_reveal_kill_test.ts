// Forward to's Add keeps the secret for its reveal page before it adds the destination, with that secret: a process
// killed (or a KV failing) after the destination is stored but before the reveal is kept left a destination whose
// secret nobody could ever see, and the form sent again was refused 409, "its secret was shown". The kill is made by
// a KV whose writes fail from the commit that stores the destination on (or from the one before it): no timing.

import assert from "node:assert/strict";
import { type Client, csrfOf, parse, withSignedInHook } from "./_helpers.ts";

/** What a page of Forward to shows: its notice, its error, the secret, and its destinations. */
function read(html: string): { notice?: string; error?: string; secret?: string; destinations: number } {
  const page = parse(html);
  try {
    const doc = page.document;
    return {
      notice: doc.querySelector("#page-notice")?.textContent ?? undefined,
      error: doc.querySelector("#page-error")?.textContent ?? undefined,
      secret: doc.querySelector("#forward-secret")?.textContent ?? undefined,
      destinations: doc.querySelectorAll("#forward-destinations tr[data-destination]").length,
    };
  } finally {
    page.close();
  }
}

/**
 * Makes every write of `kv` throw "killed" once `dies()` says so for a commit that stores a destination: `after`, from
 * the commit after that one (it is stored); else from that commit (it is not). Returns the undo.
 */
function killAt(kv: Deno.Kv, after: boolean): () => void {
  const [atomic, set, del] = [kv.atomic, kv.set, kv.delete];
  let dead = false;
  kv.atomic = () => {
    const op = atomic.call(kv);
    const [opSet, commit] = [op.set.bind(op), op.commit.bind(op)];
    let stores = false;
    op.set = (key, value, options) => {
      if (key[0] === "relay_destination") stores = true;
      return opSet(key, value, options);
    };
    op.commit = async () => {
      if (dead || (stores && !after)) {
        dead = true;
        throw new Error("killed");
      }
      const result = await commit();
      if (stores) dead = true;
      return result;
    };
    return op;
  };
  kv.set = ((...args: Parameters<Deno.Kv["set"]>) => {
    if (dead) throw new Error("killed");
    return set.apply(kv, args);
  }) as Deno.Kv["set"];
  kv.delete = ((key: Deno.KvKey) => {
    if (dead) throw new Error("killed");
    return del.call(kv, key);
  }) as Deno.Kv["delete"];
  return () => Object.assign(kv, { atomic, set, delete: del });
}

/** The secret the relay stored for its one destination. */
async function storedSecret(kv: Deno.Kv): Promise<string> {
  const stored = await Array.fromAsync(kv.list<{ secret: string }>({ prefix: ["relay_destination"] }));
  assert.equal(stored.length, 1, "one destination is stored");
  return stored[0].value.secret;
}

/** Sends the Add form of `path` for `url` as `client`; the answer is dropped, as a killed process sends none. */
async function addDying(client: Client, path: string, url: string): Promise<void> {
  const res = await client.post(path, { _csrf: csrfOf(await client.text(path, 200)), url });
  await res.body?.cancel();
}

Deno.test("Forward to's Add killed after the destination is stored: the form sent again leads to its secret", async () => {
  await withSignedInHook({}, async ({ t, client, hookId }) => {
    const path = `/webhooks/${hookId}/forward`;
    const undo = killAt(t.kv, true);
    try {
      await addDying(client, path, "https://app.example/in");
    } finally {
      undo();
    }
    const secret = await storedSecret(t.kv);
    const again = await client.post(path, {
      _csrf: csrfOf(await client.text(path, 200)),
      url: "https://app.example/in",
    });
    const body = await again.text();
    assert.doesNotMatch(body, /whsec_/);
    assert.equal(again.status, 303, `the form sent again answered ${again.status}: ${body.slice(0, 400)}`);
    const shown = read(await client.text(again.headers.get("location") ?? "", 200));
    assert.equal(shown.secret, secret, "the page shows the destination's own secret");
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/, "not whsec_ and 32 bytes in base64");
    assert.equal(shown.destinations, 1);
  });
});

Deno.test("Forward to's Add killed before the destination is stored: its reveal shows no secret, says to add again", async () => {
  await withSignedInHook({}, async ({ t, client, hookId }) => {
    const path = `/webhooks/${hookId}/forward`;
    const undo = killAt(t.kv, false);
    try {
      await addDying(client, path, "https://app.example/in");
    } finally {
      undo();
    }
    const kept = await Array.fromAsync(t.kv.list({ prefix: ["console_forward_reveal"] }));
    assert.equal(kept.length, 1, "the reveal is kept before the destination is added");
    const token = String(kept[0].key.at(-1));
    const html = await client.text(`${path}?notice=added&reveal=${token}`, 200);
    assert.doesNotMatch(html, /whsec_/, "a secret of no destination is shown");
    const shown = read(html);
    assert.equal(shown.destinations, 0);
    assert.notEqual(shown.notice, "The destination is added.");
    assert.match(shown.error ?? "", /was not added/);
    assert.match(shown.error ?? "", /add it again/i);

    // Added again: its own secret, as any add.
    const again = await client.post(path, {
      _csrf: csrfOf(await client.text(path, 200)),
      url: "https://app.example/in",
    });
    await again.body?.cancel();
    assert.equal(again.status, 303);
    const secret = read(await client.text(again.headers.get("location") ?? "", 200)).secret;
    assert.equal(secret, await storedSecret(t.kv));
  });
});

Deno.test("Forward to's reveal of a destination removed before its page was asked for shows no secret", async () => {
  await withSignedInHook({}, async ({ t, client, hookId }) => {
    const path = `/webhooks/${hookId}/forward`;
    const res = await client.post(path, { _csrf: csrfOf(await client.text(path, 200)), url: "https://app.example/in" });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    const [stored] = await Array.fromAsync(t.kv.list({ prefix: ["relay_destination"] }));
    const id = String(stored.key.at(-1));
    const remove = await client.post(`${path}/${id}/remove`, { _csrf: csrfOf(await client.text(path, 200)) });
    await remove.body?.cancel();
    const html = await client.text(res.headers.get("location") ?? "", 200);
    assert.doesNotMatch(html, /whsec_/, "the secret of a removed destination is shown");
    assert.match(read(html).error ?? "", /not added|removed/);
  });
});
