// The sandbox's REST API for webhooks and places: create, list with paging,
// replace, delete, the platform's 400s, and the sample place.

import assert from "node:assert/strict";
import { bearer, contentHook, jive, register, signIn, withSandbox } from "./_mounted.ts";

Deno.test("POST /api/core/v3/webhooks registers a hook and answers the entity", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const body = contentHook(env, "http://127.0.0.1:8000/hooks/1");
    const response = await register(env, tokens.access_token, body);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /application\/json/);
    const entity = await jive(response);
    assert.match(entity.id, /^\d+$/);
    assert.deepEqual(entity.resources.self, {
      ref: `${env.base}/api/core/v3/webhooks/${entity.id}`,
      allowed: ["GET", "PUT", "DELETE"],
    });
    assert.equal(entity.object, body.object);
    assert.equal(entity.callback, body.callback);
    assert.deepEqual(entity.events, ["discussion", "document"]);
    assert.equal(entity.enabled, true);
    assert.equal(entity.buggy, false);

    const second = await jive(await register(env, tokens.access_token, body));
    assert.notEqual(second.id, entity.id);

    const got = await fetch(entity.resources.self.ref, bearer(tokens.access_token));
    assert.equal(got.status, 200);
    assert.deepEqual(await jive(got), entity);

    // A system hook: no object, events as the platform's comma string.
    const system = await jive(
      await register(env, tokens.access_token, {
        events: "user_account, social_group",
        callback: "https://receiver.example/hooks",
      }),
    );
    assert.deepEqual(system.events, ["user_account", "social_group"]);
    assert.equal("object" in system, false);
  });
});

Deno.test("POST /api/core/v3/webhooks answers 400 for what the platform refuses", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const place = env.sandbox.placeFor(env.origin);
    const cb = "http://127.0.0.1:1/cb";
    const cases: [unknown, RegExp][] = [
      ["not json", /must be a JSON object/],
      [[], /must be a JSON object/],
      [{ object: place, callback: cb }, /'events' must be a non-empty array/],
      [{ events: [], object: place, callback: cb }, /'events' must be a non-empty array/],
      [{ events: ["discussion", ""], object: place, callback: cb }, /'events' must hold non-empty strings/],
      [{ events: [3], object: place, callback: cb }, /'events' must hold non-empty strings, got 3/],
      [{ events: ["blogpost"], object: place, callback: cb }, /Unknown event "blogpost"/],
      [{ events: ["user_account", "document"], object: place, callback: cb }, /cannot be mixed with content events/],
      [{ events: ["discussion"], callback: cb }, /'object' must be the URI of a place/],
      [{ events: ["discussion"], object: " ", callback: cb }, /'object' must be the URI of a place/],
      [{ events: ["user_session"], object: place, callback: cb }, /'object' must be empty for system events/],
      [{ events: ["discussion"], object: place }, /'callback' must be an absolute http\(s\) URL, got undefined/],
      [
        { events: ["discussion"], object: place, callback: "/relative" },
        /'callback' must be an absolute http\(s\) URL, got "\/relative"/,
      ],
      [
        { events: ["discussion"], object: place, callback: "ftp://x.example/" },
        /'callback' must be an absolute http\(s\) URL/,
      ],
    ];
    for (const [body, pattern] of cases) {
      const response = await register(env, tokens.access_token, body);
      assert.equal(response.status, 400, JSON.stringify(body));
      const error = await jive(response);
      assert.equal(error.error.status, 400);
      assert.match(error.error.message, pattern, JSON.stringify(body));
    }
    const list = await jive(await fetch(`${env.base}/api/core/v3/webhooks`, bearer(tokens.access_token)));
    assert.deepEqual(list.list, []);
  });
});

Deno.test("a content hook whose object is not a place URI is refused 400 on create and on replace", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const cb = "http://127.0.0.1:1/cb";
    const made = await jive(await register(env, tokens.access_token, contentHook(env, cb)));
    const put = (body: unknown) =>
      fetch(made.resources.self.ref, {
        method: "PUT",
        headers: { Authorization: `Bearer ${tokens.access_token}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const bad = [
      "<script>alert(1)</script>",
      "javascript:alert(1)//places/1",
      `${env.base}/api/core/v3/places/1000"><script>alert(1)</script>`,
      `${env.base}/api/core/v3/places/abc`,
      `${env.base}/api/core/v3/webhooks/1`,
      "https://c.example/",
      "//evil.example/places/1",
      "ftp://c.example/places/1",
      "places/1",
    ];
    for (const object of bad) {
      for (
        const send of [
          () => register(env, tokens.access_token, { events: ["document"], object, callback: cb }),
          () => put({ events: ["document"], object, callback: cb }),
        ]
      ) {
        const response = await send();
        assert.equal(response.status, 400, object);
        assert.match(
          (await jive(response)).error.message,
          /^'object' must be the URI of a place, such as "https:\/\/community\.example\/api\/core\/v3\/places\/1000", got /,
          object,
        );
      }
    }
    for (const object of [env.sandbox.placeFor(env.origin), "https://c.example/api/core/v3/places/42", "/places/1"]) {
      const response = await register(env, tokens.access_token, { events: ["document"], object, callback: cb });
      assert.equal(response.status, 200, object);
      assert.equal((await jive(response)).object, object);
    }
    // Nothing refused was stored: the first hook keeps its place.
    assert.deepEqual((await env.sandbox.listHooks()).map((hook) => hook.object), [
      made.object,
      env.sandbox.placeFor(env.origin),
      "https://c.example/api/core/v3/places/42",
      "/places/1",
    ]);
  });
});

Deno.test("GET /api/core/v3/webhooks pages with startIndex, count and links.next", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const created: string[] = [];
    for (let i = 0; i < 30; i++) {
      const entity = await jive(
        await register(env, tokens.access_token, contentHook(env, `http://127.0.0.1:1/cb/${i}`)),
      );
      created.push(entity.id);
    }
    const seen: string[] = [];
    let next: string | undefined = `${env.base}/api/core/v3/webhooks?count=10`;
    let pages = 0;
    while (next) {
      const page = await jive(await fetch(next, bearer(tokens.access_token)));
      pages++;
      assert.equal(page.itemsPerPage, 10);
      assert.equal(page.startIndex, (pages - 1) * 10);
      assert.equal(page.list.length, 10);
      seen.push(...page.list.map((e: { id: string }) => e.id));
      next = page.links.next;
      if (next) {
        const url = new URL(next);
        assert.equal(url.origin + url.pathname, `${env.base}/api/core/v3/webhooks`);
        assert.equal(url.searchParams.get("count"), "10");
        assert.equal(url.searchParams.get("startIndex"), String(pages * 10));
      }
    }
    assert.equal(pages, 3);
    assert.deepEqual(seen, created);

    const first = await jive(await fetch(`${env.base}/api/core/v3/webhooks`, bearer(tokens.access_token)));
    assert.equal(first.list.length, 25);
    assert.equal(first.startIndex, 0);
    assert.equal(first.itemsPerPage, 25);
    assert.equal(new URL(first.links.next).searchParams.get("startIndex"), "25");
    const last = await jive(await fetch(first.links.next, bearer(tokens.access_token)));
    assert.equal(last.list.length, 5);
    assert.equal(last.links.next, undefined);
    assert.equal(last.links.previous, `${env.base}/api/core/v3/webhooks?startIndex=0&count=25`);
    assert.equal(first.links.previous, undefined);
    const capped = await jive(await fetch(`${env.base}/api/core/v3/webhooks?count=500`, bearer(tokens.access_token)));
    assert.equal(capped.itemsPerPage, 100);
    assert.equal(capped.list.length, 30);

    for (const query of ["count=0", "count=abc", "startIndex=-1"]) {
      const bad = await fetch(`${env.base}/api/core/v3/webhooks?${query}`, bearer(tokens.access_token));
      assert.equal(bad.status, 400, query);
      assert.match((await jive(bad)).error.message, /must be an integer/);
    }
  });
});

Deno.test("DELETE /api/core/v3/webhooks/{id} answers 204, then the hook is gone", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const entity = await jive(
      await register(env, tokens.access_token, contentHook(env, "http://127.0.0.1:1/cb")),
    );
    const del = () => fetch(entity.resources.self.ref, { method: "DELETE", ...bearer(tokens.access_token) });
    const deleted = await del();
    assert.equal(deleted.status, 204);
    assert.equal(await deleted.text(), "");
    const again = await del();
    assert.equal(again.status, 404);
    assert.equal((await jive(again)).error.status, 404);
    const got = await fetch(entity.resources.self.ref, bearer(tokens.access_token));
    assert.equal(got.status, 404);
    assert.deepEqual(await jive(got), {
      error: { status: 404, message: `No webhook with id "${entity.id}"` },
    });
    const list = await jive(await fetch(`${env.base}/api/core/v3/webhooks`, bearer(tokens.access_token)));
    assert.deepEqual(list.list, []);
    const unknown = await fetch(`${env.base}/api/core/v3/nothing`, bearer(tokens.access_token));
    assert.equal(unknown.status, 404);
    assert.equal((await jive(unknown)).error.status, 404);
  });
});

Deno.test("PUT /api/core/v3/webhooks/{id} updates a hook after validating it", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const entity = await jive(
      await register(env, tokens.access_token, contentHook(env, "http://127.0.0.1:1/cb")),
    );
    const put = (body: unknown) =>
      fetch(entity.resources.self.ref, {
        method: "PUT",
        headers: { Authorization: `Bearer ${tokens.access_token}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const updated = await jive(
      await put({ events: ["idea"], object: entity.object, callback: "http://127.0.0.1:2/new", enabled: false }),
    );
    assert.deepEqual(updated.events, ["idea"]);
    assert.equal(updated.callback, "http://127.0.0.1:2/new");
    assert.equal(updated.enabled, false);
    assert.equal(updated.id, entity.id);
    const bad = await put({ events: ["idea"], callback: "http://127.0.0.1:2/new" });
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
    const got = await jive(await fetch(entity.resources.self.ref, bearer(tokens.access_token)));
    assert.deepEqual(got, updated);
    const notBoolean = await put({
      events: ["idea"],
      object: entity.object,
      callback: "http://x.example/",
      enabled: "no",
    });
    assert.equal(notBoolean.status, 400);
    assert.match((await jive(notBoolean)).error.message, /'enabled' must be a boolean/);
    const missing = await fetch(`${env.base}/api/core/v3/webhooks/424242`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${tokens.access_token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ events: ["user_account"], callback: "http://x.example/" }),
    });
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  });
});

Deno.test("GET /api/core/v3/places/1000 answers the sample place placeFor() names", async () => {
  await withSandbox(async (env) => {
    const tokens = await signIn(env);
    const place = await jive(await fetch(env.sandbox.placeFor(env.origin), bearer(tokens.access_token)));
    assert.equal(place.resources.self.ref, env.sandbox.placeFor(env.origin));
    assert.equal(place.type, "space");
  });
});
