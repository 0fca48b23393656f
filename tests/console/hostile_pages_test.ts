// Hostile or unlucky input to the console's pages outside Forward to: each test here failed on the code before its fix.

import assert from "node:assert/strict";
import { createApp } from "../../console/app.ts";
import { Client, NO_RATE_LIMITS, parse, signInAtForm, startConsole, withHook } from "./_helpers.ts";
import { warningsOf } from "./_warnings.ts";

Deno.test("a sign-in callback's error code cannot forge log lines nor fill the log, and a valid code is still named", async () => {
  const t = await startConsole();
  try {
    /** Starts a sign-in as anyone can, then comes back with `error` and the sign-in's own state. */
    const callBackWith = async (error: string) => {
      const client = new Client(t.origin);
      const login = await client.fetch("/auth/login?returnTo=/");
      const state = new URL(login.headers.get("location")!).searchParams.get("state")!;
      await login.body?.cancel();
      const res = await client.fetch(`/auth/callback?${new URLSearchParams({ state, error })}`);
      await res.body?.cancel();
      assert.equal(res.status, 302);
      assert.equal(res.headers.get("location"), "/signin?error=1");
    };
    const forged = "x\n2026-11-28T00:00:00Z Console admin signed in\r\n" + "y".repeat(5000);
    const hostile = await warningsOf(() => callBackWith(forged));
    assert.equal(hostile.length, 1);
    assert.doesNotMatch(hostile[0], /[\r\n]/);
    assert.doesNotMatch(hostile[0], /admin signed in/);
    assert.ok(hostile[0].length < 200, `${hostile[0].length} characters logged`);
    const valid = await warningsOf(() => callBackWith("access_denied"));
    assert.deepEqual(valid, ["Sign-in failed: The provider refused: access_denied"]);
  } finally {
    await t.close();
  }
});

Deno.test("a community's base URL with a user name and password is refused, and the password is on no page", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
    const baseUrl = "https://admin:hunter2@community.example.com";
    const added = await client.post("/communities", {
      _csrf: csrf,
      name: "Cred",
      tenantId: "cred",
      baseUrl,
      clientId: "cid",
    });
    const page = await added.text();
    assert.equal(added.status, 400);
    assert.match(page, /Base URL may not hold a user name or password/);
    assert.doesNotMatch(page, /hunter2/);
    assert.match(page, /value="https:\/\/community\.example\.com\/?"/, "the rest of the URL comes back to be saved");
    assert.equal((await client.fetch("/communities/cred")).status, 404, "nothing was saved");
    // Nor on an edit, which would hand the stored tokens to the URL.
    const edited = await client.post("/communities/sandbox-tenant", {
      _csrf: csrf,
      name: "Sandbox",
      baseUrl: `http://admin:hunter2@${new URL(t.origin).host}/sandbox`,
      clientId: "",
    });
    const editPage = await edited.text();
    assert.equal(edited.status, 400);
    assert.match(editPage, /Base URL may not hold a user name or password/);
    assert.doesNotMatch(editPage, /hunter2/);
    assert.doesNotMatch(await client.text("/communities", 200), /hunter2/);
  } finally {
    await t.close();
  }
});

Deno.test("a community form sent after the session ended keeps no password of its base URL", async () => {
  const t = await startConsole();
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
    await (await client.post("/signout", { _csrf: csrf })).body?.cancel();
    const res = await client.post("/communities", {
      _csrf: csrf,
      name: "Cred",
      tenantId: "cred",
      baseUrl: "https://admin:hunter2@community.example.com/",
      clientId: "cid",
    });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.match(decodeURIComponent(res.headers.get("location")!), /returnTo=\/communities\/new\?draft=/);
    let drafts = 0;
    for await (const entry of t.kv.list({ prefix: [] })) {
      const text = JSON.stringify(entry.value) ?? "";
      if (text.includes("community.example.com")) drafts++;
      assert.doesNotMatch(text, /hunter2|admin/, `a password under ${JSON.stringify(entry.key)}`);
    }
    assert.equal(drafts, 1, "the draft keeps the rest of the URL");
  } finally {
    await t.close();
  }
});

Deno.test("the Newer link of an empty page before the log's start leads to a page, not to an error", async () => {
  await withHook(async (t, { id }, client) => {
    const item = {
      webhook: "https://c.example/api/core/v3/webhooks/1",
      activity: { verb: "jive:created", title: "One" },
    };
    await t.app.deliveries.add(id, [item]);
    const empty = parse(await client.text("/deliveries?before=1", 200));
    let newer = "";
    try {
      assert.equal(empty.document.querySelectorAll("#deliveries-table tr.delivery").length, 0);
      newer = empty.document.querySelector("nav.pager a#newer")?.getAttribute("href") ?? "";
    } finally {
      empty.close();
    }
    assert.notEqual(newer, "", "the page offers newer deliveries");
    for (const path of [newer, `/deliveries?hook=${id}&after=0`]) {
      const page = parse(await client.text(path, 200));
      try {
        assert.equal(page.document.querySelector(".error")?.textContent ?? "", "", path);
        assert.equal(page.document.querySelectorAll("#deliveries-table tr.delivery").length, 1, path);
      } finally {
        page.close();
      }
    }
  });
});

Deno.test("a GET of a delivery's or a community's action URL (the address bar after a refusal) shows its page and does nothing", async () => {
  await withHook(async (t, { id }, client) => {
    const item = {
      webhook: "https://c.example/api/core/v3/webhooks/1",
      activity: { verb: "jive:created", title: "One" },
    };
    await t.app.deliveries.add(id, [item]);
    const [delivery] = await t.app.deliveries.list({ limit: 1 });
    const before = (await t.app.deliveries.list({ limit: 10 })).length;
    for (const action of ["redeliver", "replay"]) {
      const res = await client.fetch(`/deliveries/${delivery.id}/${action}`);
      await res.body?.cancel();
      assert.equal(res.status, 302, action);
      assert.equal(res.headers.get("location"), `/deliveries/${delivery.id}`, action);
    }
    assert.equal((await t.app.deliveries.list({ limit: 10 })).length, before, "nothing was delivered again");
    for (const action of ["remove", "revoke-previous-secret"]) {
      const res = await client.fetch(`/communities/sandbox-tenant/${action}`);
      await res.body?.cancel();
      assert.equal(res.status, 302, action);
      assert.equal(res.headers.get("location"), "/communities/sandbox-tenant", action);
    }
    assert.ok(await t.app.webhooks.communities.findByTenantID("sandbox-tenant"), "the community is still there");
  });
});

Deno.test("a From or To with seconds keeps them in the page's links and fields, so every page filters alike", async () => {
  await withHook(async (_t, _hook, client) => {
    const page = parse(
      await client.text("/deliveries?from=2020-01-01T10:00:30&to=2030-01-01T00:00:00.250Z&before=9", 200),
    );
    try {
      const newest = new URL(page.document.querySelector("nav.pager a#first-page")!.getAttribute("href")!, "http://x");
      assert.equal(newest.searchParams.get("from"), "2020-01-01T10:00:30");
      assert.equal(newest.searchParams.get("to"), "2030-01-01T00:00:00.250");
      assert.equal((page.document.querySelector("#filter-from") as HTMLInputElement).value, "2020-01-01T10:00:30");
      assert.equal((page.document.querySelector("#filter-to") as HTMLInputElement).value, "2030-01-01T00:00:00.250");
    } finally {
      page.close();
    }
    // A whole minute stays as a datetime-local field sends it.
    const whole = parse(await client.text("/deliveries?from=2020-01-01T10:00&before=9", 200));
    try {
      assert.equal((whole.document.querySelector("#filter-from") as HTMLInputElement).value, "2020-01-01T10:00");
    } finally {
      whole.close();
    }
  });
});

Deno.test("a request that fails (here the KV is out) cannot forge lines of the console's log through its path", async () => {
  const kv = await Deno.openKv(":memory:");
  // Session reads fail, as in a KV outage: every request with a session cookie is answered 500 and logged.
  const failing = new Proxy(kv, {
    get(target, prop) {
      if (prop === "get") {
        return (key: Deno.KvKey) =>
          key[0] === "console_session" ? Promise.reject(new Error("KV unavailable")) : target.get(key);
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  let handler: (r: Request) => Response | Promise<Response> = () => new Response(null, { status: 503 });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (r) => handler(r));
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const app = createApp({ kv: failing, publicUrl: origin, buildAssets: false, rateLimits: NO_RATE_LIMITS });
  const errors: string[] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => void errors.push(args.map(String).join(" "));
  try {
    await app.ready;
    handler = app.fetch;
    const res = await fetch(`${origin}/x%0D%0A2026-11-28T00:00:00Z%20Console%20admin%20signed%20in`, {
      headers: { cookie: "cw_session=abc" },
    });
    await res.text();
    assert.equal(res.status, 500);
    assert.equal(errors.length, 1, errors.join("|"));
    assert.doesNotMatch(errors[0], /[\r\n]/);
    assert.match(errors[0], /^Console error on GET /);
  } finally {
    console.error = error;
    await app.close();
    await server.shutdown();
    kv.close();
  }
});

Deno.test("deliveries.json reads the newest for a cursor that is no place in the log, and the JSON views refuse a hook id too long to filter on", async () => {
  await withHook(async (t, { id }, client) => {
    for (let i = 0; i < 3; i++) {
      await t.app.deliveries.add(id, [{
        webhook: "https://c.example/api/core/v3/webhooks/1",
        activity: { title: `D${i}` },
      }]);
    }
    const titles = async (query: string) => {
      const res = await client.fetch(`/deliveries.json${query}`);
      assert.equal(res.status, 200, query);
      const { values } = await res.json() as { values: { seq: number }[] };
      return values.map((v) => v.seq);
    };
    const newest = await titles("");
    assert.equal(newest.length, 3);
    assert.ok(newest[0] > newest[2], "newest first");
    for (const after of ["1.5", "Infinity", "1e400", "-3", "abc"]) {
      assert.deepEqual(await titles(`?after=${after}`), newest, `after=${after}`);
    }
    // A real cursor still reads on from it.
    assert.deepEqual(await titles(`?after=${newest[2]}`), newest.slice(0, 2));

    const long = "h".repeat(201);
    for (const path of ["/deliveries.json", "/deliveries/stats.json", "/deliveries/events"]) {
      const res = await client.fetch(`${path}?hook=${long}`);
      assert.equal(res.status, 400, path);
      assert.match((await res.json()).error, /hook: a webhook id of at most 200 characters/);
    }
    const stats = await client.fetch(`/deliveries/stats.json?hook=${id}`);
    assert.equal(stats.status, 200);
    await stats.body?.cancel();
  });
});

Deno.test("the webhook lookup by id shows an unknown id cut short, its control characters escaped", async () => {
  await withHook(async (_t, _hook, client) => {
    const id = `nope\u0000${"x".repeat(3000)}`;
    const res = await client.fetch(`/webhooks?${new URLSearchParams({ id })}`);
    assert.equal(res.status, 404);
    const page = parse(await res.text());
    try {
      const error = page.document.querySelector(".error")?.textContent ?? "";
      assert.match(error, /^No webhook has the id 'nope\\u0000x{75}…'$/);
    } finally {
      page.close();
    }
  });
});

Deno.test("a hook's callback with a password shows it masked in the list and on the hook's page", async () => {
  await withHook(async (t, hook, client) => {
    const record = (await t.app.webhooks.findByID(hook.id))!;
    const callback = "https://relay:hunter2-pw@app.example/hooks/1";
    await t.app.webhooks.save({ ...record, entity: { ...record.entity, callback } });
    for (const path of ["/webhooks", `/webhooks/${encodeURIComponent(hook.id)}`]) {
      const page = await client.text(path, 200);
      const at = page.indexOf("hunter2");
      assert.ok(at < 0, `${path} shows the callback's password: ${page.slice(at - 300, at + 100)}`);
      assert.ok(page.includes("https://relay:***@app.example/hooks/1"), path);
    }
  });
});
