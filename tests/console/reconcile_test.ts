import assert from "node:assert/strict";
import { HookLabels } from "../../console/lib/labels.ts";
import {
  csrfOf,
  parse,
  registerFormFields,
  signIn,
  startConsole,
  trigger,
  withSignedIn,
  withSignedInHook,
} from "./_helpers.ts";

Deno.test("the reconcile page reports matched, orphan and dangling hooks and applies the fixes", async () => {
  await withSignedInHook({}, async ({ t, client, hookId: matched }) => {
    // A dangling record: the platform has no such hook.
    await t.app.webhooks.save({
      id: "dangling-1",
      tenantId: "sandbox-tenant",
      entity: { id: "9999", resources: { self: { ref: `${t.origin}/sandbox/api/core/v3/webhooks/9999` } } },
    });
    // An orphan: a hook made on the platform behind the console's back.
    const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    const made = await fetch(`${t.origin}/sandbox/api/core/v3/webhooks`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${community.oauth!.access_token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ events: ["user_account"], callback: "https://elsewhere.example/cb" }),
    });
    assert.ok(made.ok, `the sandbox made the hook (${made.status})`);
    await made.body?.cancel();

    const html = await client.text("/communities/sandbox-tenant/reconcile", 200);
    const page = parse(html);
    try {
      const d = page.document;
      assert.equal(d.querySelector("#matched-count")?.textContent, "1");
      assert.equal(d.querySelector("#orphans-count")?.textContent, "1");
      assert.equal(d.querySelector("#dangling-count")?.textContent, "1");
      assert.ok(d.querySelector("#matched")?.textContent?.includes(matched));
      assert.ok(d.querySelector("#dangling")?.textContent?.includes("dangling-1"));
      assert.equal(d.querySelector("#orphans .unknown") !== null, true);
      // Each orphan shows its events and callback.
      assert.match(
        d.querySelector("#orphans")?.textContent ?? "",
        /events user_account, callback\s*https:\/\/elsewhere\.example\/cb/,
      );
      assert.equal(d.querySelector("form#fix input[name=_csrf]") !== null, true);
    } finally {
      page.close();
    }
    assert.ok(!html.includes(community.oauth!.access_token));

    // The fix form is CSRF-protected.
    const refused = await client.post("/communities/sandbox-tenant/reconcile", { deleteUnknown: "1" });
    assert.equal(refused.status, 403);
    await refused.body?.cancel();
    assert.ok(await t.app.webhooks.findByID("dangling-1"));

    // Deleting on the platform asks first; nothing changes until confirmed.
    const ask = await client.post("/communities/sandbox-tenant/reconcile", { _csrf: csrfOf(html), deleteUnknown: "1" });
    assert.equal(ask.status, 200);
    assert.match(await ask.text(), /Delete unexplained orphans\?/);
    assert.ok(await t.app.webhooks.findByID("dangling-1"));
    const res = await client.post("/communities/sandbox-tenant/reconcile", {
      _csrf: csrfOf(html),
      deleteUnknown: "1",
      confirm: "yes",
    });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    const location = res.headers.get("location")!;
    assert.equal(location, "/communities/sandbox-tenant/reconcile?notice=fixed", "the counts are not in the link");
    assert.equal(await t.app.webhooks.findByID("dangling-1"), null);
    const after = parse(await client.text(location, 200));
    try {
      assert.equal(after.document.querySelector("#matched-count")?.textContent, "1");
      assert.equal(after.document.querySelector("#orphans-count")?.textContent, "0");
      assert.equal(after.document.querySelector("#dangling-count")?.textContent, "0");
      // What changed is said, and with nothing left there is nothing to apply.
      assert.equal(
        after.document.querySelector(".notice")?.textContent,
        "The fixes are applied: 0 hooks adopted, 1 dangling record removed, 0 abandoned registrations cleared, 1 unexplained orphan deleted on the platform.",
      );
      assert.ok(after.document.querySelector("#nothing-to-fix"));
      assert.equal(after.document.querySelector("form#fix") === null, true, "the fix form after the fixes");
    } finally {
      after.close();
    }

    // A link cannot make the page claim what the fixes changed: not in the query, not in another session.
    const notice = async (who: typeof client, path: string) => {
      const page = parse(await who.text(path, 200));
      try {
        return page.document.querySelector(".notice")?.textContent;
      } finally {
        page.close();
      }
    };
    const forged = "/communities/sandbox-tenant/reconcile?notice=fixed&adopted=999&removed=999&cleared=9&deleted=9";
    const victim = await signIn(t.origin);
    assert.equal(await notice(victim, forged), "The fixes are applied.");
    assert.equal(await notice(victim, location), "The fixes are applied.");
    assert.doesNotMatch(await notice(client, forged) ?? "", /999/, "the session's own counts, or none");
  });
});

Deno.test("the reconcile page lists matched and dangling hooks by name, and counts one orphan as one", async () => {
  await withSignedInHook({}, async ({ t, client, hookId: matched }) => {
    const csrf = csrfOf(await client.text(`/webhooks/${matched}`, 200));
    await (await client.post(`/webhooks/${matched}/label`, { _csrf: csrf, name: "Orders feed", description: "" })).body
      ?.cancel();
    await t.app.webhooks.save({
      id: "dangling-1",
      tenantId: "sandbox-tenant",
      entity: { id: "9999", resources: { self: { ref: `${t.origin}/sandbox/api/core/v3/webhooks/9999` } } },
    });
    await new HookLabels(t.kv).set("dangling-1", { name: "Old feed", description: "" });
    const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    const made = await fetch(`${t.origin}/sandbox/api/core/v3/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${community.oauth!.access_token}`, "content-type": "application/json" },
      body: JSON.stringify({ events: ["user_account"], callback: "https://elsewhere.example/cb" }),
    });
    await made.body?.cancel();
    const page = parse(await client.text("/communities/sandbox-tenant/reconcile", 200));
    try {
      const d = page.document;
      assert.equal(d.querySelector(`#matched a[href="/webhooks/${matched}"]`)?.textContent, "Orders feed");
      assert.match(d.querySelector("#dangling")?.textContent ?? "", /^Old feed \(record dangling-1\)/);
      const fix = d.querySelector("form#fix")?.textContent?.replace(/\s+/g, " ") ?? "";
      assert.match(fix, /Also delete the unexplained orphan on the platform/);
      assert.doesNotMatch(fix, /1 unexplained orphans|1 dangling records/);
    } finally {
      page.close();
    }
  });
});

Deno.test("the reconcile page of an unknown community is 404", async () => {
  await withSignedIn({ connect: false }, async ({ client }) => {
    const res = await client.fetch("/communities/nope/reconcile");
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });
});

Deno.test("an interrupted registration shows as an orphan with its pending entry, and the fix adopts it", async () => {
  let breakNext = false;
  const flaky: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    if (breakNext && request.method === "POST" && new URL(request.url).pathname === "/sandbox/api/core/v3/webhooks") {
      breakNext = false;
      // The platform made the hook, but its answer is lost on the way.
      await response.body?.cancel();
      return new Response("{ cut", { status: 200, headers: { "content-type": "application/json" } });
    }
    return response;
  };
  const t = await startConsole({ fetch: flaky, reconcileStaleAfterMs: 0 });
  try {
    const client = await signIn(t.origin);
    const fields = await registerFormFields(client);
    breakNext = true;
    const res = await client.post("/webhooks", {
      ...fields,
      tenantId: "sandbox-tenant",
      events: ["social_group"],
    });
    assert.equal(res.status, 502);
    assert.match(
      await res.text(),
      /The platform may have registered the webhook all the same .*Reconcile the community/s,
    );
    assert.equal((await t.app.webhooks.list()).values.length, 0);
    assert.equal((await t.app.webhooks.pending("sandbox-tenant")).length, 1);

    const html = await client.text("/communities/sandbox-tenant/reconcile", 200);
    const page = parse(html);
    try {
      assert.equal(page.document.querySelector("#orphans-count")?.textContent, "1");
      assert.match(page.document.querySelector("#orphans .pending")?.textContent ?? "", /social_group/);
    } finally {
      page.close();
    }
    const fix = await client.post("/communities/sandbox-tenant/reconcile", { _csrf: csrfOf(html) });
    await fix.body?.cancel();
    assert.equal(fix.status, 303);
    const adopted = (await t.app.webhooks.list()).values;
    assert.equal(adopted.length, 1);
    assert.deepEqual(adopted[0].entity.events, ["social_group"]);
    assert.equal((await t.app.webhooks.pending("sandbox-tenant")).length, 0);
    // Its postbacks reach this console's receiver.
    assert.deepEqual(await trigger(t.origin, { webhookId: String(adopted[0].entity.id) }), [200]);
    assert.equal((await t.app.deliveries.list({ hookId: adopted[0].id })).length, 1);
    const after = parse(await client.text("/communities/sandbox-tenant/reconcile", 200));
    try {
      assert.equal(after.document.querySelector("#matched-count")?.textContent, "1");
      assert.equal(after.document.querySelector("#orphans-count")?.textContent, "0");
    } finally {
      after.close();
    }
  } finally {
    await t.close();
  }
});
