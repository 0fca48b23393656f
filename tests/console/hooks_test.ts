import assert from "node:assert/strict";
import { receiverIdOf } from "../../console/routes/hooks.ts";
import { type JiveExtnParams, signJiveExtn } from "../../webhooks/mod.ts";
import { parse, type TestConsole, trigger, withHook } from "./_helpers.ts";

/** What the sandbox community signs its postbacks with: the JiveEXTN parameters and its client secret. */
async function sandboxSigning(t: TestConsole): Promise<{ params: JiveExtnParams; secret: string }> {
  const c = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
  return {
    params: { clientId: c.clientId!, jiveUrl: `${t.origin}/sandbox`, tenantId: "sandbox-tenant" },
    secret: c.clientSecret!,
  };
}

/** A JiveEXTN header signed now with the sandbox community's secret, as the platform signs. */
async function sandboxSignature(t: TestConsole): Promise<string> {
  const { params, secret } = await sandboxSigning(t);
  return await signJiveExtn(params, secret);
}

function body(ref: string): string {
  return JSON.stringify([{
    webhook: ref,
    activity: { verb: "jive:created", title: "Hand-made postback", object: {} },
  }]);
}

Deno.test("a postback signed with the community's secret is stored and shown", async () => {
  await withHook(async (t, hook, client) => {
    const header = await sandboxSignature(t);
    const res = await fetch(hook.callback, {
      method: "POST",
      headers: { authorization: header, "content-type": "application/json" },
      body: body(hook.ref),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { received: 1 });
    const stored = await t.app.app.request("/deliveries.json", {
      headers: { cookie: `cw_session=${client.cookies.get("cw_session")}` },
    });
    const { values } = await stored.json();
    assert.equal(values.length, 1);
    assert.equal(values[0].hookId, hook.id);
    assert.equal(values[0].verb, "jive:created");
    assert.equal(values[0].title, "Hand-made postback");
    const page = parse(await client.text("/deliveries", 200));
    try {
      const rows = page.document.querySelectorAll("#deliveries-table tr.delivery");
      assert.equal(rows.length, 1);
      assert.equal(rows[0].querySelector(".verb")?.textContent, "jive:created");
    } finally {
      page.close();
    }
    // Its page shows the payload as received.
    const detail = parse(await client.text(`/deliveries/${values[0].id}`, 200));
    try {
      const payload = JSON.parse(detail.document.querySelector("#payload")?.textContent ?? "null");
      assert.equal(payload.activity.title, "Hand-made postback");
      assert.equal(payload.webhook, hook.ref);
    } finally {
      detail.close();
    }
    // The record id works as the receiver path too.
    const header2 = await sandboxSignature(t);
    const byId = await fetch(`${t.origin}/hooks/${hook.id}`, {
      method: "POST",
      headers: { authorization: header2 },
      body: body(hook.ref),
    });
    assert.equal(byId.status, 200);
    assert.equal(byId.headers.get("x-content-type-options"), "nosniff");
    await byId.body?.cancel();
  });
});

Deno.test("the sandbox's own postbacks pass the receiver's checks", async () => {
  await withHook(async (t, hook) => {
    assert.deepEqual(await trigger(t.origin, { webhookId: hook.platformId }), [200]);
    const stored = await t.app.deliveries.list({ hookId: hook.id });
    assert.equal(stored.length, 1);
    assert.equal(stored[0].verb, "jive:created");
    assert.equal(stored[0].webhook, hook.ref);
  });
});

Deno.test("a postback without a signature, with a forged one or an old one is refused with 401", async () => {
  await withHook(async (t, hook) => {
    const { params, secret } = await sandboxSigning(t);
    const forged = await signJiveExtn(params, btoa("not the community's secret"));
    const old = await signJiveExtn({ ...params, timestamp: Date.now() - 6 * 60_000 }, secret);
    const future = await signJiveExtn({ ...params, timestamp: Date.now() + 10 * 60_000 }, secret);
    const otherTenant = await signJiveExtn({ ...params, tenantId: "other" }, secret);
    const cases: [string, Record<string, string>][] = [
      ["missing", {}],
      ["not JiveEXTN", { authorization: "Bearer abc" }],
      ["forged", { authorization: forged }],
      ["old", { authorization: old }],
      ["future", { authorization: future }],
      ["other tenant", { authorization: otherTenant }],
    ];
    for (const [name, headers] of cases) {
      const res = await fetch(hook.callback, { method: "POST", headers, body: body(hook.ref) });
      assert.equal(res.status, 401, name);
      const answer = await res.json();
      assert.match(answer.error, /^Unauthorized/, name);
      assert.ok(!JSON.stringify(answer).includes(secret), name);
    }
    assert.equal((await t.app.deliveries.page({ status: "accepted" })).values.length, 0);
    // Each refusal is in the log with its reason, and no log entry holds the signature or the secret.
    const rejected = (await t.app.deliveries.page({ status: "rejected" })).values;
    assert.ok(rejected.length >= 3 && rejected.every((d) => d.status === 401 && d.reason), JSON.stringify(rejected));
    for (const d of rejected) {
      const stored = JSON.stringify(await t.app.deliveries.get(d.id));
      assert.ok(!stored.includes(secret) && !/signature=[^&"\s]/.test(stored), stored);
    }
  });
});

Deno.test("a postback over 1 MiB is refused with 413", async () => {
  await withHook(async (t, hook) => {
    const header = await sandboxSignature(t);
    const big = JSON.stringify([{ webhook: hook.ref, activity: { content: "x".repeat(1024 * 1024) } }]);
    const res = await fetch(hook.callback, {
      method: "POST",
      headers: { authorization: header, "content-type": "application/json" },
      body: big,
    });
    assert.equal(res.status, 413);
    await res.body?.cancel();
    assert.equal((await t.app.deliveries.page({ status: "accepted" })).values.length, 0);
    const [logged] = (await t.app.deliveries.page({ status: "rejected" })).values;
    assert.equal(logged.status, 413);
    assert.match(logged.reason!, /^Payload too large/);
    assert.ok((await t.app.deliveries.get(logged.id))!.payload.length <= 2048, "a bounded excerpt only");
  });
});

Deno.test("a postback to an unknown hook is answered 404", async () => {
  await withHook(async (t) => {
    const header = await sandboxSignature(t);
    const res = await fetch(`${t.origin}/hooks/01HZZZZZZZZZZZZZZZZZZZZZZZ`, {
      method: "POST",
      headers: { authorization: header },
      body: "[]",
    });
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });
});

Deno.test("a signed postback whose body is not an array is answered 400", async () => {
  await withHook(async (t, hook) => {
    const header = await sandboxSignature(t);
    const res = await fetch(hook.callback, {
      method: "POST",
      headers: { authorization: header },
      body: '{"webhook":"x"}',
    });
    assert.equal(res.status, 400);
    await res.body?.cancel();
  });
});

Deno.test("receiverIdOf() takes the one path segment after /hooks/, decoded, and nothing else", () => {
  assert.equal(receiverIdOf("http://127.0.0.1:8000/hooks/abc"), "abc");
  assert.equal(receiverIdOf("http://127.0.0.1:8000/hooks/a%20b?x=1#y"), "a b");
  for (
    const url of [
      "http://h/hooks/",
      "http://h/hooks/a/b",
      "http://h/hooksx/a",
      "http://h/hooks/%E0%A4%A",
      "http://h/x/hooks/a",
    ]
  ) {
    assert.equal(receiverIdOf(url), null, url);
  }
});

Deno.test("each item of a stored postback has its own page, with how the request went", async () => {
  await withHook(async (t, hook, client) => {
    const items = [1, 2].map((n) => ({ webhook: hook.ref, activity: { verb: "jive:created", title: `Item ${n}` } }));
    const res = await fetch(hook.callback, {
      method: "POST",
      headers: { authorization: await sandboxSignature(t), "content-type": "application/json" },
      body: JSON.stringify(items),
    });
    assert.deepEqual(await res.json(), { received: 2 });
    await t.app.deliveries.flush();
    const stored = await t.app.deliveries.list({ hookId: hook.id, forward: true });
    // Numbered by the console: "q", the first item's number, then the item's place.
    assert.deepEqual(stored.map((view) => view.id.replace(/^q[0-9a-z]{9,11}-/, "")), ["0", "1"]);
    assert.equal(new Set(stored.map((view) => view.id.split("-")[0])).size, 1);
    for (const view of stored) {
      const detail = parse(await client.text(`/deliveries/${view.id}`, 200));
      try {
        const status = detail.document.querySelector("#delivery-status")?.textContent ?? "";
        assert.match(status, /, in [\d.]+ ms$/, `the details of ${view.id}`);
        assert.match(detail.document.querySelector("#delivery-facts")?.textContent ?? "", /sandbox-tenant/);
      } finally {
        detail.close();
      }
      assert.notEqual(await t.app.deliveries.attemptOf(view), null);
    }
  });
});

Deno.test("a stored postback is found by text only its payload holds, and its page shows summary and payload", async () => {
  await withHook(async (t, hook, client) => {
    const items = [{
      webhook: hook.ref,
      activity: { verb: "jive:liked", title: "Plain title", object: { id: "needle-7Q" } },
    }];
    const res = await fetch(hook.callback, {
      method: "POST",
      headers: { authorization: await sandboxSignature(t), "content-type": "application/json" },
      body: JSON.stringify(items),
    });
    assert.deepEqual(await res.json(), { received: 1 });
    const page = await t.app.deliveries.page({ q: "NEEDLE-7q" });
    assert.equal(page.values.length, 1);
    const [view] = page.values;
    const stored = await t.app.deliveries.get(view.id);
    const { seq: _, ...summary } = view;
    assert.deepEqual(stored, { ...summary, payload: JSON.stringify(items[0]), truncated: false });
    assert.equal((await t.app.deliveries.page({ q: "needle-8" })).values.length, 0);
    const detail = parse(await client.text(`/deliveries/${view.id}`, 200));
    try {
      assert.equal(
        JSON.parse(detail.document.querySelector("#payload")?.textContent ?? "null").activity.object.id,
        "needle-7Q",
      );
      const facts = detail.document.querySelector("#delivery-facts")?.textContent ?? "";
      assert.ok(facts.includes(`${hook.id} · ${hook.ref}`), facts); // from the summary
    } finally {
      detail.close();
    }
  });
});
