// The "Forward to" actions attacked through their URLs: each action names a
// hook in its path and must act only on what that hook's page shows. Another
// hook's destination or dead letter, an unknown hook, and ids too long for a
// KV key are refused with a page naming what is wrong (never 500), and what
// is stored stays as it was.

import assert from "node:assert/strict";
import { type Client, csrfOf, registerHook, trigger, withHook, withSignedInHook } from "./_helpers.ts";
import { startApp, until } from "../webhooks/relay/fixtures.ts";
import { createRelay } from "../../webhooks/mod.ts";
import { addDestination } from "./_forward_forms.ts";

const LONG = "x".repeat(3000);

/** Posts `form` to `path`; returns the status, the redirect and the body. */
async function post(client: Client, path: string, form: Record<string, string>) {
  const res = await client.post(path, form);
  return { status: res.status, location: res.headers.get("location"), html: await res.text(), headers: res.headers };
}

Deno.test("Forward to: one hook's page cannot disable or remove another hook's destination", async () => {
  await withHook(async (t, hook, client) => {
    const other = await registerHook(client, t.origin, { events: ["discussion"] });
    const theirs = await addDestination(client, other, "https://app.example/theirs");
    const secret = /id="forward-secret">([^<]+)</.exec(theirs.html)![1];
    const csrf = csrfOf(await client.text(`/webhooks/${hook.id}/forward`, 200));
    const ours = `/webhooks/${hook.id}/forward`;

    const disable = await post(client, `${ours}/${theirs.id}/enabled`, { _csrf: csrf, enabled: "0" });
    assert.equal(disable.status, 404);
    assert.match(disable.html, new RegExp(`No destination &quot;${theirs.id}&quot; forwards this hook`));
    const remove = await post(client, `${ours}/${theirs.id}/remove`, { _csrf: csrf });
    assert.equal(remove.status, 404);
    assert.match(remove.html, new RegExp(`No destination &quot;${theirs.id}&quot; forwards this hook`));

    const stored = await t.app.webhooks.findByID(other);
    assert.ok(stored);
    const theirPage = await client.text(`/webhooks/${other}/forward`, 200);
    assert.match(theirPage, new RegExp(`data-destination="${theirs.id}"`));
    assert.match(theirPage, /<td>enabled<\/td>/);
    // The secret shown once on the add is on none of these answers.
    for (const text of [disable.html, remove.html, theirPage]) assert.ok(!text.includes(secret));

    // Its own page still acts on it.
    const own = await post(client, `/webhooks/${other}/forward/${theirs.id}/enabled`, { _csrf: csrf, enabled: "0" });
    assert.equal(own.status, 303);
    assert.equal(own.location, `/webhooks/${other}/forward?notice=disabled`);
  });
});

Deno.test("Forward to: an unknown hook, an unknown destination and ids too long for a KV key are 404, never 500", async () => {
  await withHook(async (_t, hook, client) => {
    const mine = await addDestination(client, hook.id, "https://app.example/mine");
    const csrf = csrfOf(await client.text(`/webhooks/${hook.id}/forward`, 200));
    const ours = `/webhooks/${hook.id}/forward`;
    for (const path of [`/webhooks/nope/forward/${mine.id}/enabled`, `/webhooks/nope/forward/${mine.id}/remove`]) {
      const res = await post(client, path, { _csrf: csrf, enabled: "0" });
      assert.equal(res.status, 404, path);
      assert.match(res.html, /No webhook has that id/);
    }
    const gone = await post(client, `/webhooks/nope/forward/redeliver/msg_1`, { _csrf: csrf });
    assert.equal(gone.status, 404);
    assert.match(gone.html, /No webhook has that id/);

    for (const dest of ["nothere", LONG]) {
      for (const action of ["enabled", "remove"]) {
        const res = await post(client, `${ours}/${dest}/${action}`, { _csrf: csrf, enabled: "0" });
        assert.equal(res.status, 404, `${action} ${dest.slice(0, 10)}`);
        assert.match(res.html, /No destination &quot;(nothere|x{64}…)&quot; forwards this hook/);
        assert.ok(!res.html.includes(LONG), "a long id is cut short");
      }
    }
    const long = await post(client, `${ours}/redeliver/${LONG}`, { _csrf: csrf });
    assert.equal(long.status, 303);
    assert.equal(long.location, `${ours}?notice=gone`);

    // Nothing changed: the destination is there and enabled.
    const page = await client.text(ours, 200);
    assert.match(page, new RegExp(`data-destination="${mine.id}"`));
    assert.match(page, /<td>enabled<\/td>/);
  });
});

Deno.test("Redeliver leaves another hook's dead letter alone, and says so when the destination is disabled", async () => {
  let status = 410;
  const app = startApp(() => new Response("answer", { status }));
  try {
    await withSignedInHook({ relayWorker: true }, async ({ t, client, hookId: mine }) => {
      const other = await registerHook(client, t.origin, { events: ["discussion"] });
      await addDestination(client, other, app.url);
      const platformId = String((await t.app.webhooks.findByID(other))!.entity.id);
      assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
      const theirs = `/webhooks/${other}/forward`;
      let deadId = "";
      await until(
        async () => {
          deadId = /data-entry="([^"]+)"/.exec(await client.text(theirs, 200))?.[1] ?? "";
          return deadId !== "";
        },
        5_000,
        "the dead letter",
      );

      const csrf = csrfOf(await client.text(`/webhooks/${mine}/forward`, 200));
      const res = await post(client, `/webhooks/${mine}/forward/redeliver/${deadId}`, { _csrf: csrf });
      assert.equal(res.status, 303);
      assert.equal(res.location, `/webhooks/${mine}/forward?notice=gone`);
      assert.match(await client.text(theirs, 200), new RegExp(`data-entry="${deadId}"`)); // still a dead letter

      // Its destination answered 410, so it is disabled: Redeliver says so and leaves the dead letter (a worker would
      // make it a dead letter again at once, unsent).
      const disabled = await post(client, `${theirs}/redeliver/${deadId}`, { _csrf: csrf });
      assert.equal(disabled.status, 409);
      assert.match(
        disabled.html,
        new RegExp(`dead letter &quot;${deadId}&quot; was not sent again: its destination .* is disabled`),
      );
      assert.match(await client.text(theirs, 200), new RegExp(`data-entry="${deadId}"`));
      assert.equal(app.received.length, 1);

      // From its own hook's page it is sent again, once: a second click finds it gone (the app now takes it).
      status = 200;
      const destId = /data-destination="([^"]+)"/.exec(await client.text(theirs, 200))![1];
      const enable = await post(client, `${theirs}/${destId}/enabled`, { _csrf: csrf, enabled: "1" }); // the 410 disabled it
      assert.equal(enable.location, `${theirs}?notice=enabled`);
      const first = await post(client, `${theirs}/redeliver/${deadId}`, { _csrf: csrf });
      assert.equal(first.location, `${theirs}?notice=redelivered`);
      const second = await post(client, `${theirs}/redeliver/${deadId}`, { _csrf: csrf });
      assert.equal(second.location, `${theirs}?notice=gone`);
    });
  } finally {
    await app.close();
  }
});

Deno.test("Forward to: Reload or a double click of Add adds one destination, its secret shown once", async () => {
  await withHook(async (_t, hook, client) => {
    const path = `/webhooks/${hook.id}/forward`;
    const csrf = csrfOf(await client.text(path, 200));
    const url = "https://app.example/hooks";
    const [a, b] = await Promise.all([
      post(client, path, { _csrf: csrf, url }),
      post(client, path, { _csrf: csrf, url }),
    ]);
    // Both lead to the one secret, not yet seen: the browser shows whichever answer came last (scripts off).
    assert.deepEqual([a.status, b.status], [303, 303]);
    assert.equal(a.location, b.location);
    assert.doesNotMatch(a.html + b.html, /whsec_/);
    const shown = await client.fetch(a.location!);
    assert.equal(shown.headers.get("cache-control"), "no-store"); // no cache shows it again
    const secret = /id="forward-secret">([^<]+)</.exec(await shown.text())![1];

    // The form posted again once the secret was shown (Back, then Add): refused, the same URL spelled differently too.
    const again = await post(client, path, { _csrf: csrf, url: "HTTPS://APP.example:443/hooks" });
    assert.equal(again.status, 409);
    assert.match(again.html, /No destination was added: https:\/\/app.example\/hooks already receives this hook/);
    assert.doesNotMatch(again.html, /whsec_/);
    const page = await client.text(path, 200);
    assert.equal(page.match(/data-destination="/g)?.length, 1);
    assert.ok(!page.includes(secret));

    // Another URL is added as before.
    assert.equal((await post(client, path, { _csrf: csrf, url: "https://app.example/other" })).status, 303);
  });
});

Deno.test("Unregister removes the hook's own destinations, secrets and all; one of another hook too stays", async () => {
  await withHook(async (t, hook, client) => {
    const other = await registerHook(client, t.origin, { events: ["discussion"] });
    await addDestination(client, hook.id, "https://app.example/mine");
    const theirs = await addDestination(client, other, "https://app.example/theirs");
    const relay = createRelay(t.kv);
    const shared = await relay.destinations.add({ url: "https://app.example/both", hookIds: [hook.id, other] });
    try {
      const csrf = csrfOf(await client.text(`/webhooks/${hook.id}`, 200));
      const res = await post(client, `/webhooks/${hook.id}/unregister`, { _csrf: csrf, confirm: "yes" });
      assert.equal(res.location, "/webhooks?notice=unregistered");
      // No page lists a destination of a hook that is gone: none is left behind with its secret.
      const left = (await relay.destinations.list()).map((d) => ({ id: d.id, hookIds: d.hookIds }));
      assert.deepEqual(left, [{ id: theirs.id, hookIds: [other] }, { id: shared.id, hookIds: [other] }]);
    } finally {
      await relay.close();
    }
  });
});

Deno.test("Reconcile's fix removes a dangling record's destinations with it, one shared by two of them too", async () => {
  await withHook(async (t, hook, client) => {
    for (const [id, platformId] of [["dangling-1", "9999"], ["dangling-2", "9998"]]) {
      await t.app.webhooks.save({
        id,
        tenantId: "sandbox-tenant",
        entity: {
          id: platformId,
          resources: { self: { ref: `${t.origin}/sandbox/api/core/v3/webhooks/${platformId}` } },
        },
      });
    }
    const relay = createRelay(t.kv);
    try {
      await relay.destinations.add({ url: "https://app.example/dangling", hookIds: ["dangling-1"] });
      await relay.destinations.add({ url: "https://app.example/both", hookIds: ["dangling-1", "dangling-2"] });
      const kept = await addDestination(client, hook.id, "https://app.example/kept");
      const csrf = csrfOf(await client.text("/communities/sandbox-tenant/reconcile", 200));
      const res = await post(client, "/communities/sandbox-tenant/reconcile", { _csrf: csrf });
      assert.equal(res.status, 303);
      assert.equal(await t.app.webhooks.findByID("dangling-1"), null);
      assert.equal(await t.app.webhooks.findByID("dangling-2"), null);
      assert.deepEqual((await relay.destinations.list()).map((d) => d.id), [kept.id]);
    } finally {
      await relay.close();
    }
  });
});

Deno.test("a destination URL with a password is refused, and one stored by an earlier version shows it as ***", async () => {
  await withHook(async (t, hook, client) => {
    // The relay refuses such a URL now, without echoing it.
    const path = `/webhooks/${hook.id}/forward`;
    const refused = await post(client, path, {
      _csrf: csrfOf(await client.text(path, 200)),
      url: "https://user:hunter2@app.example/in",
    });
    assert.equal(refused.status, 400);
    assert.match(refused.html, /must not carry a user name or password/);
    assert.ok(!refused.html.includes("hunter2"));
    const token = await post(client, path, {
      _csrf: csrfOf(await client.text(path, 200)),
      url: "https://s3cr3ttoken@app.example/in",
    });
    assert.equal(token.status, 400);
    assert.ok(!token.html.includes("s3cr3ttoken"), "a user name standing alone (a token) is not echoed either");
    // An earlier version stored them: such a destination, its URL set in KV as it would have been stored.
    const added = await addDestination(client, hook.id, "https://app.example/in");
    let patched = false;
    for await (const entry of t.kv.list<{ id?: string; url?: string }>({ prefix: [] })) {
      if (entry.value?.id === added.id && entry.value.url === "https://app.example/in") {
        // As every change of a destination, in a commit that moves the version key the relay's list is kept by.
        await t.kv.atomic().set(entry.key, { ...entry.value, url: "https://user:hunter2@app.example/in" })
          .sum(["relay_destinations_version"], 1n).commit();
        patched = true;
      }
    }
    assert.ok(patched, "the destination's record was found in KV");
    await until(async () => (await client.text(path, 200)).includes("user:***@app.example"), 5_000, "the stored URL");
    assert.ok(!(await client.text(path, 200)).includes("hunter2"));
    assert.deepEqual(await trigger(t.origin, { webhookId: hook.platformId }), [200]);
    const [delivery] = (await t.app.deliveries.page({ hookId: hook.id })).values;
    const page = await client.text(`/deliveries/${delivery.id}`, 200);
    assert.match(page, /Forwarded to your app/);
    assert.match(page, /user:\*\*\*@app\.example/);
    assert.ok(!page.includes("hunter2"));
  });
});

Deno.test("Forward to: a private address is refused naming the console's setting, not the relay's option", async () => {
  await withHook(async (_t, hook, client) => {
    const path = `/webhooks/${hook.id}/forward`;
    const res = await post(client, path, {
      _csrf: csrfOf(await client.text(path, 200)),
      url: "http://169.254.169.254/x",
    });
    assert.equal(res.status, 400);
    assert.match(res.html, /No destination was added: .*link-local.*ALLOW_PRIVATE_NETWORK=1 allows it/);
    assert.ok(!res.html.includes("allowPrivateNetwork"));
  }, { allowPrivateNetwork: false });
});
