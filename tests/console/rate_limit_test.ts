// Rate limits kept in KV: sign-in, form posts, the receiver per verified
// tenant and the sandbox's trigger, answered 429 with Retry-After, and
// shared by every process on one KV (issue 13 item 4).

import assert from "node:assert/strict";
import { RateLimiter } from "../../console/lib/rate_limit.ts";
import { signJiveExtn } from "../../webhooks/mod.ts";
import {
  type Client,
  csrfOf,
  NO_RATE_LIMITS,
  parse,
  signIn,
  signInAtForm,
  startConsole,
  type TestConsole,
} from "./_helpers.ts";
import { withTwoHandles } from "./_kv_faults.ts";

const twoPerMinute = { limit: 2, windowMs: 60_000 };

Deno.test("RateLimiter counts hits per window and names the seconds until the next", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    let now = 120_000 + 15_000; // 15 s into a window
    const limiter = new RateLimiter(kv, { signin: { limit: 3, windowMs: 60_000 } }, () => now);
    for (let i = 0; i < 3; i++) assert.deepEqual(await limiter.hit("signin", "1.2.3.4"), { ok: true });
    assert.deepEqual(await limiter.hit("signin", "1.2.3.4"), { ok: false, retryAfter: 45 });
    assert.deepEqual(await limiter.hit("signin", "5.6.7.8"), { ok: true }, "another key has its own count");
    now += 45_000;
    assert.deepEqual(await limiter.hit("signin", "1.2.3.4"), { ok: true }, "a new window");
  } finally {
    kv.close();
  }
});

Deno.test("RateLimiter lets exactly the limit through a burst, and counts across KV handles", () =>
  withTwoHandles(async (a, b) => {
    const rules = { receiver: { limit: 25, windowMs: 60_000 } };
    const limiters = [new RateLimiter(a, rules), new RateLimiter(b, rules)];
    const verdicts = await Promise.all(Array.from({ length: 60 }, (_, i) => limiters[i % 2].hit("receiver", "t1")));
    assert.equal(verdicts.filter((v) => v.ok).length, 25);
  }));

Deno.test("RateLimiter refuses a rule that cannot work", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    assert.throws(
      () => new RateLimiter(kv, { forms: { limit: 0, windowMs: 60_000 } }),
      (err: Error) =>
        err instanceof RangeError &&
        err.message === "Cannot limit 'forms': the limit must be a positive integer and the window at least 1000 ms",
    );
  } finally {
    kv.close();
  }
});

async function status(res: Response): Promise<[number, string | null]> {
  await res.body?.cancel();
  return [res.status, res.headers.get("retry-after")];
}

Deno.test("sign-in is limited per client address: 429 with Retry-After", async () => {
  const t = await startConsole({ rateLimits: { ...NO_RATE_LIMITS, signin: twoPerMinute } });
  try {
    const login = () => fetch(`${t.origin}/auth/login`, { redirect: "manual" });
    assert.equal((await status(await login()))[0], 302);
    assert.equal((await status(await login()))[0], 302);
    const [code, retryAfter] = await status(await login());
    assert.equal(code, 429);
    assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, String(retryAfter));
  } finally {
    await t.close();
  }
});

/** Runs `fn` on a console allowing two form posts a minute per session, signed in at the add community form. */
async function withFormLimit(fn: (t: TestConsole, client: Client, csrf: string) => Promise<void>): Promise<void> {
  const t = await startConsole({ rateLimits: { ...NO_RATE_LIMITS, forms: twoPerMinute } });
  try {
    const { client, csrf } = await signInAtForm(t.origin, "/communities/new");
    await fn(t, client, csrf);
  } finally {
    await t.close();
  }
}

Deno.test("form posts are limited per session", async () => {
  await withFormLimit(async (t, client, csrf) => {
    const post = () => client.post("/communities", { _csrf: csrf, name: "", tenantId: "", baseUrl: "" });
    assert.notEqual((await status(await post()))[0], 429);
    assert.notEqual((await status(await post()))[0], 429);
    assert.equal((await status(await post()))[0], 429);
    // Another session has its own budget.
    const other = await signIn(t.origin);
    const res = await other.post("/communities", {
      _csrf: csrfOf(await other.text("/communities/new", 200)),
      name: "",
      tenantId: "",
      baseUrl: "",
    });
    assert.notEqual((await status(res))[0], 429);
  });
});

Deno.test("form posts refused for CSRF spend none of the session's allowance", async () => {
  await withFormLimit(async (_t, client, csrf) => {
    const fields = { name: "", tenantId: "", baseUrl: "" };
    // Forgeries in the session's name: a wrong token, no token, another site's origin. Each refused 403, never 429.
    for (let i = 0; i < 3; i++) {
      assert.equal((await status(await client.post("/communities", { ...fields, _csrf: "not-the-token" })))[0], 403);
      assert.equal((await status(await client.post("/communities", fields)))[0], 403);
      const foreign = await client.post("/communities", { ...fields, _csrf: csrf }, { origin: "https://evil.example" });
      assert.equal((await status(foreign))[0], 403);
    }
    // The user's own posts still have their whole allowance.
    const post = () => client.post("/communities", { ...fields, _csrf: csrf });
    assert.notEqual((await status(await post()))[0], 429);
    assert.notEqual((await status(await post()))[0], 429);
    assert.equal((await status(await post()))[0], 429);
  });
});

async function sandboxHeader(t: TestConsole, secret?: string): Promise<string> {
  const c = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
  return await signJiveExtn(
    { clientId: c.clientId!, jiveUrl: `${t.origin}/sandbox`, tenantId: "sandbox-tenant", timestamp: Date.now() },
    secret ?? c.clientSecret!,
  );
}

Deno.test("the receiver is limited per verified tenant; forged headers spend none of its budget", async () => {
  const t = await startConsole({ rateLimits: { ...NO_RATE_LIMITS, receiver: twoPerMinute } });
  try {
    const send = async (authorization: string) => {
      const res = await fetch(`${t.origin}/hooks/none`, { method: "POST", headers: { authorization }, body: "[]" });
      return [res.status, res.headers.get("retry-after"), await res.json()] as const;
    };
    for (let i = 0; i < 4; i++) {
      assert.equal((await send(await sandboxHeader(t, btoa("not the secret"))))[0], 401);
    }
    // Verified: counted (here answered 400, an empty array), until the limit.
    assert.notEqual((await send(await sandboxHeader(t)))[0], 429);
    assert.notEqual((await send(await sandboxHeader(t)))[0], 429);
    const [code, retryAfter, body] = await send(await sandboxHeader(t));
    assert.equal(code, 429);
    assert.ok(Number(retryAfter) >= 1);
    assert.match((body as { error: string }).error, /^Too many requests: try again in \d+ s$/);
  } finally {
    await t.close();
  }
});

/** Asks the sandbox's trigger (JSON) to send postbacks. */
function fireTrigger(origin: string): Promise<Response> {
  return fetch(`${origin}/sandbox/trigger`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
}

Deno.test("the sandbox's trigger is limited per client address: JSON for a JSON call, the sandbox's page for a form", async () => {
  const t = await startConsole({ rateLimits: { ...NO_RATE_LIMITS, sandbox: twoPerMinute } });
  try {
    const fire = () => fireTrigger(t.origin);
    assert.equal((await status(await fire()))[0], 200);
    assert.equal((await status(await fire()))[0], 200);
    const refused = await fire();
    assert.equal(refused.status, 429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
    assert.deepEqual(await refused.json(), { error: `Too many requests: try again in ${retryAfter} s` });
    // The sandbox index's Trigger form gets a page in the sandbox's layout, not bare text.
    const form = await fetch(`${t.origin}/sandbox/trigger`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: t.origin },
      body: "event=document",
      redirect: "manual",
    });
    assert.equal(form.status, 429);
    assert.match(form.headers.get("content-type") ?? "", /^text\/html/);
    const page = parse(await form.text());
    try {
      const doc = page.document;
      assert.equal(doc.querySelector("title")?.textContent, "Too many requests · Sandbox community");
      assert.equal(doc.querySelector("h1")?.textContent, "Too many requests");
      assert.match(
        doc.querySelector("#error")?.textContent ?? "",
        /^Too many requests from your address: try again in \d+ s\.$/,
      );
      assert.equal(doc.querySelector("nav.back a")?.getAttribute("href"), "/");
    } finally {
      page.close();
    }
  } finally {
    await t.close();
  }
});

Deno.test("the sandbox's limit counts its trigger only: sign-ins' token requests and REST API calls are not counted", async () => {
  const t = await startConsole({ rateLimits: { ...NO_RATE_LIMITS, sandbox: twoPerMinute } });
  try {
    // Each sign-in posts the consent form and the console asks the token endpoint, both from 127.0.0.1.
    for (let i = 0; i < 3; i++) await signIn(t.origin);
    // A burst of triggers spends the budget...
    const fire = () => fireTrigger(t.origin);
    assert.equal((await status(await fire()))[0], 200);
    assert.equal((await status(await fire()))[0], 200);
    assert.equal((await status(await fire()))[0], 429);
    // ...and the platform's REST API (a CLI's register and unregister) still answers.
    const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    const token = community.oauth!.access_token;
    const api = `${t.origin}/sandbox/api/core/v3/webhooks`;
    for (let i = 0; i < 3; i++) {
      const made = await fetch(api, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ events: ["user_account"], callback: "http://127.0.0.1:1/cb" }),
      });
      assert.equal(made.status, 200);
      const entity = JSON.parse((await made.text()).replace(/^[^\n]*\n/, ""));
      const gone = await fetch(`${api}/${entity.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal((await status(gone))[0], 204);
    }
    // A fourth sign-in still works.
    await signIn(t.origin);
  } finally {
    await t.close();
  }
});

Deno.test("RateLimiter reads no count while it is the only one counting, and reads again when another counted", () =>
  withTwoHandles(async (a, b) => {
    let reads = 0;
    const counted = new Proxy(a, {
      get(target, prop) {
        if (prop === "get") reads++;
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const rules = { receiver: { limit: 5, windowMs: 60_000 } };
    const now = () => 1_000; // one window throughout
    const mine = new RateLimiter(counted, rules, now);
    for (let i = 0; i < 3; i++) assert.equal((await mine.hit("receiver", "t1")).ok, true);
    assert.equal(reads, 0, "one commit a hit, no read");
    // Another process counts two: the next hit here finds its remembered count stale, reads, and counts on.
    const other = new RateLimiter(b, rules, now);
    assert.equal((await other.hit("receiver", "t1")).ok, true);
    assert.equal((await other.hit("receiver", "t1")).ok, true);
    assert.equal((await mine.hit("receiver", "t1")).ok, false, "the sixth hit of the window");
    assert.equal(reads, 1);
  }));
