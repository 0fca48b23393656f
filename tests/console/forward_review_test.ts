// The "Forward to" page attacked again (a review after hostile_forwarding_test.ts): hand-made or stale forms, a
// URL refused with a password in it, and forms sent after the session ended.

import assert from "node:assert/strict";
import { csrfOf, registerHook, signIn, withHook } from "./_helpers.ts";
import { createRelay } from "../../webhooks/mod.ts";
import { deadLetter, storeDead } from "./_dead_letters.ts";
import { addDestination } from "./_forward_forms.ts";

Deno.test("Forward to: an 'enabled' other than 1 or 0 (a hand-made or stale form) changes nothing", async () => {
  await withHook(async (_t, hook, client) => {
    const path = `/webhooks/${hook.id}/forward`;
    const id = (await addDestination(client, hook.id, "https://app.example/in")).id;
    const csrf = csrfOf(await client.text(path, 200));
    const forms: Record<string, string>[] = [{ _csrf: csrf, enabled: "maybe" }, { _csrf: csrf }, {
      _csrf: csrf,
      enabled: "",
    }];
    for (const form of forms) {
      const res = await client.post(`${path}/${id}/enabled`, form);
      const html = await res.text();
      assert.equal(res.status, 400, `${JSON.stringify(form.enabled)}: ${res.headers.get("location")}`);
      assert.match(html, /Nothing was changed: (&#39;|')enabled(&#39;|') must be 1 \(enable\) or 0 \(disable\)/);
    }
    // Still enabled, and a real form still acts.
    assert.match(await client.text(path, 200), /<td>enabled<\/td>/);
    const off = await client.post(`${path}/${id}/enabled`, { _csrf: csrf, enabled: "0" });
    await off.body?.cancel();
    assert.equal(off.headers.get("location"), `${path}?notice=disabled`);
  });
});

Deno.test("Forward to: a URL refused as malformed never echoes the password or token in it", async () => {
  await withHook(async (_t, hook, client) => {
    const path = `/webhooks/${hook.id}/forward`;
    const csrf = csrfOf(await client.text(path, 200));
    for (
      const url of [
        "https://user:hunter2@app.example/a b",
        "https://user:hunter2@app.example\\in",
        "http://user:hunter2@",
        "https://hunter2@app.example/\u0007",
      ]
    ) {
      const res = await client.post(path, { _csrf: csrf, url });
      const html = await res.text();
      assert.equal(res.status, 400, url);
      assert.match(html, /No destination was added: .*must be an absolute http\(s\) URL/, url);
      assert.ok(!html.includes("hunter2"), `${JSON.stringify(url)} is echoed with its secret`);
    }
  });
});

Deno.test("Forward to: its forms sent after the session ended lead back to its page, the URL typed kept, nothing done", async () => {
  await withHook(async (t, hook, client) => {
    const path = `/webhooks/${hook.id}/forward`;
    const id = (await addDestination(client, hook.id, "https://app.example/in")).id;
    const csrf = csrfOf(await client.text(path, 200));
    const signout = await client.post("/signout", { _csrf: csrf }); // as another tab of the same browser would
    await signout.body?.cancel();
    const again = await signIn(t.origin); // after sign-in: a new session, the same browser
    const sent: [string, Record<string, string>][] = [
      [path, { _csrf: csrf, url: "https://user:hunter2@app.example/typed" }],
      [`${path}/${id}/enabled`, { _csrf: csrf, enabled: "0" }],
      [`${path}/${id}/remove`, { _csrf: csrf }],
      [`${path}/redeliver/msg_1`, { _csrf: csrf }],
      [`/webhooks/${hook.id}/forget`, { _csrf: csrf, confirm: "yes" }],
    ];
    for (const [action, form] of sent) {
      const res = await client.post(action, form);
      await res.body?.cancel();
      assert.equal(res.status, 303, action);
      const returnTo = new URL(res.headers.get("location")!, t.origin).searchParams.get("returnTo") ?? "";
      const page = action.includes("/forward") ? path : `/webhooks/${hook.id}`;
      assert.match(returnTo, new RegExp(`^${page}\\?draft=`), action);
      // The same browser: the draft's cookie, which binds it to the browser that sent the form, is there too.
      again.cookies.set("cw_draft", client.cookies.get("cw_draft") ?? "");
      const html = await again.text(returnTo, 200);
      assert.match(html, /the form you sent was not saved/, action);
      assert.ok(!html.includes("hunter2"), "a password typed is not kept");
      if (action === path) assert.match(html, /value="https:\/\/app\.example\/typed"/);
    }
    // Nothing was done: the one destination, enabled, and the hook's record.
    const page = await again.text(path, 200);
    assert.equal(page.match(/data-destination="/g)?.length, 1);
    assert.match(page, /<td>enabled<\/td>/);
    assert.ok(await t.app.webhooks.findByID(hook.id));
  });
});

Deno.test("a ?notice= that names a property every object has (toString, constructor) shows no notice", async () => {
  await withHook(async (_t, hook, client) => {
    for (const page of [`/webhooks/${hook.id}/forward`, "/webhooks", `/webhooks/${hook.id}`]) {
      for (const code of ["toString", "constructor", "hasOwnProperty", "__proto__"]) {
        const html = await client.text(`${page}?notice=${code}`, 200);
        assert.doesNotMatch(html, /class="notice"/, `${page}?notice=${code}`);
      }
    }
  });
});

Deno.test("Forward to: a destination shared with another hook says so, and Remove takes only this hook off it", async () => {
  await withHook(async (t, hook, client) => {
    const other = await registerHook(client, t.origin, { events: ["discussion"] });
    const relay = createRelay(t.kv);
    try {
      const shared = await relay.destinations.add({ url: "https://app.example/both", hookIds: [hook.id, other] });
      const path = `/webhooks/${hook.id}/forward`;
      const html = await client.text(path, 200);
      assert.match(html, /<td>this hook and 1 other<\/td>/);
      const res = await client.post(`${path}/${shared.id}/remove`, { _csrf: csrfOf(html) });
      await res.body?.cancel();
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), `${path}?notice=unlinked`);
      assert.match(
        await client.text(`${path}?notice=unlinked`, 200),
        /still forwards the postbacks of the other hooks/,
      );
      // The other hook's forwarding goes on: the destination, its secret and its state are still its.
      assert.deepEqual(
        (await relay.destinations.list()).map((d) => ({ id: d.id, hookIds: d.hookIds, enabled: d.enabled })),
        [{ id: shared.id, hookIds: [other], enabled: true }],
      );
      assert.doesNotMatch(await client.text(path, 200), new RegExp(`data-destination="${shared.id}"`));
      assert.match(await client.text(`/webhooks/${other}/forward`, 200), new RegExp(`data-destination="${shared.id}"`));

      // Shared with a hook whose record is gone (removed here without its destinations): removed, not left to it.
      const gone = await registerHook(client, t.origin, { events: ["discussion"] });
      const dangling = await relay.destinations.add({ url: "https://app.example/gone", hookIds: [hook.id, gone] });
      await t.app.webhooks.remove(gone);
      const csrf = csrfOf(await client.text(path, 200));
      const removed = await client.post(`${path}/${dangling.id}/remove`, { _csrf: csrf });
      await removed.body?.cancel();
      assert.equal(removed.headers.get("location"), `${path}?notice=removed`);
      assert.equal(await relay.destinations.get(dangling.id), null);
    } finally {
      await relay.close();
    }
  });
});

Deno.test("Forward to: a GET of an action's URL (the address bar after a refused action, a bookmark) shows the page", async () => {
  await withHook(async (_t, hook, client) => {
    const path = `/webhooks/${hook.id}/forward`;
    for (const action of ["/d1/enabled", "/d1/remove", "/redeliver/msg_1"]) {
      const res = await client.fetch(path + action);
      await res.body?.cancel();
      assert.equal(res.status, 302, action);
      assert.equal(res.headers.get("location"), path);
    }
    // The hook page's own action URLs still lead to it; deeper paths that end like one are no action of it.
    const label = await client.fetch(`/webhooks/${hook.id}/label`);
    await label.body?.cancel();
    assert.equal(label.headers.get("location"), `/webhooks/${hook.id}`);
    const deeper = await client.fetch(`/webhooks/${hook.id}/a/b/test`);
    await deeper.body?.cancel();
    assert.equal(deeper.status, 404);
    const unknown = await client.fetch(`/webhooks/nope/forward/redeliver/msg_1`);
    assert.equal((await client.follow(unknown)).status, 404);
  });
});

Deno.test("Forward to: exactly a page of dead letters, its 'Older' page says there are no older ones", async () => {
  await withHook(async (t, hook, client) => {
    const relay = createRelay(t.kv);
    try {
      const destination = await relay.destinations.add({ url: "https://app.example/in", hookIds: [hook.id] });
      for (let i = 0; i < 100; i++) {
        await storeDead(t.kv, deadLetter(i, destination.id, hook.id));
      }
      const path = `/webhooks/${hook.id}/forward`;
      const first = await client.text(path, 200);
      assert.equal(first.match(/data-entry="/g)?.length, 100);
      const older = /id="forward-dead-older" href="([^"]+)"/.exec(first)?.[1].replaceAll("&amp;", "&");
      const second = await client.text(older ?? path, 200);
      assert.doesNotMatch(second, /data-entry=/);
      assert.doesNotMatch(second, /id="forward-no-dead-here"/, "no letter is hidden: there is none older");
      assert.match(second, /id="forward-no-older">No older dead letters/);
    } finally {
      await relay.close();
    }
  });
});

Deno.test("Forward to: a hook whose postbacks go to a callback elsewhere says that nothing reaches its destinations", async () => {
  await withHook(async (t, hook, client) => {
    const elsewhere = await registerHook(client, t.origin, {
      events: ["discussion"],
      callback: "https://elsewhere.example/in",
    });
    const theirs = await client.text(`/webhooks/${elsewhere}/forward`, 200);
    assert.match(theirs, /id="forward-elsewhere"/);
    assert.match(theirs, /https:\/\/elsewhere\.example\/in/);
    assert.doesNotMatch(await client.text(`/webhooks/${hook.id}/forward`, 200), /id="forward-elsewhere"/);
  });
});

Deno.test("Forget: a destination the hook shared with a hook whose record is gone goes too, secret and all", async () => {
  await withHook(async (t, hook, client) => {
    const relay = createRelay(t.kv);
    try {
      const gone = await registerHook(client, t.origin, { events: ["discussion"] });
      const kept = await registerHook(client, t.origin, { events: ["discussion"] });
      const dangling = await relay.destinations.add({ url: "https://app.example/gone", hookIds: [hook.id, gone] });
      const shared = await relay.destinations.add({ url: "https://app.example/kept", hookIds: [hook.id, gone, kept] });
      await t.app.webhooks.remove(gone); // removed without the console: its destinations still name it
      const csrf = csrfOf(await client.text(`/webhooks/${hook.id}`, 200));
      const res = await client.post(`/webhooks/${hook.id}/forget`, { _csrf: csrf, confirm: "yes" });
      await res.body?.cancel();
      assert.equal(res.headers.get("location"), "/webhooks?notice=forgotten");
      // The relay refuses to keep a hook that is gone: the update names only the hooks that are there.
      assert.equal(await relay.destinations.get(dangling.id), null);
      assert.deepEqual((await relay.destinations.get(shared.id))?.hookIds, [kept]);
    } finally {
      await relay.close();
    }
  });
});

Deno.test("Forward to: an add whose page then cannot be read (the KV failing) still shows the secret, this once", async () => {
  await withHook(async (t, hook, client) => {
    const path = `/webhooks/${hook.id}/forward`;
    const csrf = csrfOf(await client.text(path, 200));
    const list = t.kv.list.bind(t.kv);
    let failing = true;
    t.kv.list = ((selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
      const first = "prefix" in selector ? selector.prefix[0] : undefined;
      if (failing && String(first).startsWith("relay_dead")) throw new Error("the KV failed");
      return list(selector, options);
    }) as Deno.Kv["list"];
    const posted = await client.post(path, { _csrf: csrf, url: "https://app.example/in" });
    assert.equal(posted.status, 303);
    const res = await client.follow(posted);
    const html = await res.text();
    failing = false;
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const secret = /<code id="forward-secret">(whsec_[^<]+)<\/code>/.exec(html)?.[1];
    assert.ok(secret, "the secret is on the answer");
    assert.match(html, /The destination is added/);
    // It is the destination's own secret, and no later page shows it.
    const relay = createRelay(t.kv);
    assert.equal((await relay.destinations.list()).length, 1);
    await relay.close();
    assert.ok(!(await client.text(path, 200)).includes(secret));
    assert.ok(!(await client.text(posted.headers.get("location")!, 200)).includes(secret));
  });
});
