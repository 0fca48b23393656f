// The register form (issue 24): submitting it again (Back, then Register)
// shows the hook it made instead of making a second one (defect 12), it
// preselects a community that can register (defect 14), and a callback on a
// loopback, private or link-local address is registered with a warning
// unless it is this console's own (portal gap).

import assert from "node:assert/strict";
import { type Client, csrfOf, parse, placeOf, signIn, startConsole, withSignedIn } from "./_helpers.ts";

/** The register form's hidden fields and its preselected community. */
async function registerForm(client: Client): Promise<{ csrf: string; formToken: string; selected: string }> {
  const page = parse(await client.text("/webhooks/new", 200));
  try {
    const d = page.document;
    return {
      csrf: (d.querySelector("#register input[name=_csrf]") as HTMLInputElement).value,
      formToken: (d.querySelector("#register input[name=formToken]") as HTMLInputElement | null)?.value ?? "",
      selected: (d.querySelector("#community option[selected]") as HTMLOptionElement | null)?.value ?? "",
    };
  } finally {
    page.close();
  }
}

/** Adds a community through the form; with `connected`, with an access token. */
async function addCommunity(client: Client, tenantId: string, connected: boolean): Promise<void> {
  const res = await client.post("/communities", {
    _csrf: csrfOf(await client.text("/communities/new", 200)),
    name: `Community ${tenantId}`,
    tenantId,
    baseUrl: `https://${tenantId}.example`,
    ...(connected ? { accessToken: "token-of-" + tenantId } : {}),
  });
  await res.body?.cancel();
  assert.equal(res.status, 303);
}

Deno.test("a register form sent twice (Back, then Register) makes one hook and shows it the second time", async () => {
  await withSignedIn({}, async ({ t, client }) => {
    const { csrf, formToken } = await registerForm(client);
    assert.match(formToken, /^[A-Za-z0-9_-]{20,}$/);
    const fields = {
      _csrf: csrf,
      formToken,
      tenantId: "sandbox-tenant",
      events: ["document"],
      object: placeOf(t.origin),
      callback: "",
    };
    const first = await client.post("/webhooks", fields);
    await first.body?.cancel();
    assert.equal(first.status, 303);
    const id = /^\/webhooks\/([^/?]+)\?notice=registered$/.exec(first.headers.get("location")!)![1];
    const again = await client.post("/webhooks", fields);
    await again.body?.cancel();
    assert.equal(again.status, 303);
    assert.equal(again.headers.get("location"), `/webhooks/${id}?notice=already-registered`);
    assert.equal((await t.app.webhooks.list()).values.length, 1, "one hook");
    assert.equal((await t.app.sandboxApi!.listHooks()).length, 1, "one hook on the platform");
    const page = parse(await client.text(again.headers.get("location")!, 200));
    try {
      assert.match(page.document.querySelector(".notice")?.textContent ?? "", /submitted already/);
    } finally {
      page.close();
    }
    // A form refused (no events) may be corrected and sent again with its token.
    const next = await registerForm(client);
    const refused = await client.post("/webhooks", { ...fields, formToken: next.formToken, events: [] });
    assert.equal(refused.status, 400);
    await refused.body?.cancel();
    const fixed = await client.post("/webhooks", { ...fields, formToken: next.formToken });
    await fixed.body?.cancel();
    assert.match(fixed.headers.get("location")!, /\?notice=registered$/);
    assert.equal((await t.app.webhooks.list()).values.length, 2);
  });
});

/** Registers a hook of system events in the sandbox community through a fresh register form; expects its 303. */
async function registerSystemHook(client: Client, fields: Record<string, string> = {}): Promise<Response> {
  const { csrf, formToken } = await registerForm(client);
  const res = await client.post("/webhooks", {
    _csrf: csrf,
    formToken,
    tenantId: "sandbox-tenant",
    events: ["user_account"],
    ...fields,
  });
  await res.body?.cancel();
  assert.equal(res.status, 303, fields.callback);
  return res;
}

Deno.test("the register form preselects a connected community, then the one last used", async () => {
  await withSignedIn({}, async ({ client }) => {
    // Before "sandbox-tenant" by tenant id, and without tokens: it cannot register.
    await addCommunity(client, "aaa-unconnected", false);
    assert.equal((await registerForm(client)).selected, "sandbox-tenant");
    // With none used yet, the first connected one; once the sandbox is used, the sandbox.
    await addCommunity(client, "abc-connected", true);
    assert.equal((await registerForm(client)).selected, "abc-connected");
    await registerSystemHook(client);
    assert.equal((await registerForm(client)).selected, "sandbox-tenant");
  });
});

Deno.test("a callback on a loopback, private or link-local address is registered with a warning, this console's not", async () => {
  await withSignedIn({}, async ({ t, client }) => {
    for (
      const [callback, warned] of [
        ["http://127.0.0.1:9999/hook", true],
        ["http://10.1.2.3/hook", true],
        ["http://169.254.169.254/hook", true],
        ["", false], // this console's receiver, on 127.0.0.1 too
        [`${t.origin}/hooks/elsewhere`, false],
      ] as const
    ) {
      const res = await registerSystemHook(client, { callback });
      const page = parse(await client.text(res.headers.get("location")!, 200));
      try {
        const warning = page.document.querySelector("#callback-warning")?.textContent ?? "";
        if (warned) {
          assert.match(warning, /loopback, private or link-local address/, callback);
          assert.match(page.document.querySelector(".notice")?.textContent ?? "", /registered/);
        } else {
          assert.equal(warning, "", callback);
        }
      } finally {
        page.close();
      }
    }
  });
});

Deno.test("a registration the platform may have made (no answer in time) says to reconcile, and a resend of it registers nothing", async () => {
  const posts: string[] = [];
  const slow = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (req) => {
    posts.push(`${req.method} ${new URL(req.url).pathname}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return Response.json({ id: "1", resources: { self: { ref: "x" } } });
  });
  const t = await startConsole({ platformTimeoutMs: 200, allowPrivateNetwork: true });
  try {
    const client = await signIn(t.origin);
    await t.app.webhooks.communities.save({
      name: "Slow",
      tenantId: "slow",
      baseUrl: `http://127.0.0.1:${slow.addr.port}`,
      oauth: { access_token: "a", refresh_token: "r" },
    });
    const { csrf, formToken } = await registerForm(client);
    const fields = { _csrf: csrf, formToken, tenantId: "slow", events: ["user_account"], callback: "" };
    const first = await client.post("/webhooks", fields);
    const html = await first.text();
    assert.equal(first.status, 502);
    assert.match(html, /The platform may have registered the webhook all the same \(.*no answer within 200 ms\)/s);
    assert.match(html, /Reconcile the community \(Communities → Slow → Reconcile\)/);
    // The browser resends the same form (a reload): nothing is sent to the platform again.
    const resent = await client.post("/webhooks", fields);
    assert.equal(resent.status, 409);
    assert.match(await resent.text(), /This form was sent already, and the platform may have registered its webhook/);
    assert.equal(posts.filter((p) => p === "POST /api/core/v3/webhooks").length, 1);
  } finally {
    await t.close();
    await slow.shutdown();
  }
});
