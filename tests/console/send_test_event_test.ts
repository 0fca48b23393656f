// "Send test event" says what the platform answered: delivered (with the
// callback's status), or that it could not reach the callback and why, that
// the hook is disabled (offering Enable), or that the hook is gone; the
// platform's failed attempts show in the hook's deliveries (issue 24, defects 2
// and 3).

import assert from "node:assert/strict";
import { csrfOf, parse, registerHook, testEventFields, withHook, withSignedIn } from "./_helpers.ts";

/** The text of `selector` on a page. */
function textOf(html: string, selector: string): string {
  const page = parse(html);
  try {
    return page.document.querySelector(selector)?.textContent ?? "";
  } finally {
    page.close();
  }
}

Deno.test("Send test event to an unreachable callback says the platform could not reach it, why, and logs the attempt", async () => {
  await withSignedIn({ allowPrivateNetwork: false }, async ({ t, client }) => {
    for (
      const [callback, host] of [
        ["http://169.254.169.254/latest/meta-data/", "169.254.169.254"],
        ["http://127.0.0.1:9999/hook", "127.0.0.1:9999"],
        ["http://localhost:6379/", "localhost:6379"],
      ]
    ) {
      const id = await registerHook(client, t.origin, { callback });
      const res = await client.post(`/webhooks/${id}/test`, await testEventFields(client, id));
      await res.body?.cancel();
      // Shown by a redirect, so that a reload does not send the test event again.
      assert.equal(res.status, 303, callback);
      assert.match(res.headers.get("location")!, new RegExp(`^/webhooks/${id}\\?notice=triggered&answer=0&at=\\d+$`));
      const body = await client.text(res.headers.get("location")!, 200);
      assert.doesNotMatch(body, /A test event was sent/);
      const error = textOf(body, ".error, [role=alert]");
      assert.match(error, /The platform could not reach the callback \(/, callback);
      assert.ok(error.includes(host), `${error} names ${host}`);
      assert.match(error, /loopback, private or link-local/);
      // The attempt is in the hook's deliveries, as a platform-side failure.
      const rows = await t.app.deliveries.list({ hookId: id });
      assert.equal(rows.length, 1, callback);
      assert.equal(rows[0].status, 0);
      assert.match(rows[0].reason ?? "", /^Platform-side failure: the platform could not reach the callback \(/);
      assert.ok(rows[0].reason!.includes(host));
      const stored = await t.app.deliveries.get(rows[0].id);
      // The header's public parameters are kept (its timestamp names the postback for a redelivery), never its signature.
      assert.doesNotMatch(JSON.stringify(stored), /signature/, "the signature is not kept");
      assert.match(stored?.attempt?.headers.authorization ?? "", /^JiveEXTN algorithm=HmacSHA256&.*timestamp=\d+$/);
      const page = parse(await client.text(`/webhooks/${id}`, 200));
      try {
        assert.match(
          page.document.querySelector("#deliveries-table tbody")?.textContent ?? "",
          /Platform-side failure/,
        );
      } finally {
        page.close();
      }
    }
  });
});

Deno.test("Send test event to a callback that refuses the connection names the reason", async () => {
  const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const deadPort = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await withSignedIn({ allowPrivateNetwork: true }, async ({ t, client }) => {
    const id = await registerHook(client, t.origin, { callback: `http://127.0.0.1:${deadPort}/x?token=s3cr3t` });
    const res = await client.post(`/webhooks/${id}/test`, await testEventFields(client, id));
    await res.body?.cancel();
    assert.equal(res.status, 303);
    const body = await client.text(res.headers.get("location")!, 200);
    assert.match(textOf(body, ".error, [role=alert]"), /could not reach the callback \(.*Connection refused/);
    // A reload shows the page again and sends nothing: one attempt is logged.
    await client.text(res.headers.get("location")!, 200);
    assert.equal((await t.app.deliveries.list({ hookId: id })).length, 1);
    // That reason is this attempt's only: for an attempt started after it was logged (one that could not be logged
    // itself), the page gives none.
    for (const query of [`&at=${Date.now() + 3_600_000}`, "", "&at="]) {
      const later = await client.text(`/webhooks/${id}?notice=triggered&answer=0${query}`, 200);
      assert.equal(
        textOf(later, ".error, [role=alert]"),
        "The platform could not reach the callback. The attempt is logged in the deliveries below.",
        query,
      );
    }
    assert.doesNotMatch(textOf(body, ".error, [role=alert]"), /s3cr3t/);
    const [row] = await t.app.deliveries.list({ hookId: id });
    assert.match(row.reason ?? "", /Connection refused/);
    assert.doesNotMatch(row.reason ?? "", /s3cr3t/);
  });
});

Deno.test("Send test event to this console's receiver reports the receiver's answer", async () => {
  await withHook(async (t, { id }, client) => {
    const res = await client.post(`/webhooks/${id}/test`, await testEventFields(client, id));
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), `/webhooks/${id}?notice=triggered&answer=200`);
    const page = await client.text(res.headers.get("location")!, 200);
    assert.equal(
      textOf(page, ".notice, [role=status]"),
      "The platform delivered the test event: this console's receiver answered 200.",
    );
    const rows = await t.app.deliveries.list({ hookId: id });
    assert.deepEqual(rows.map((r) => [r.status, r.reason]), [[200, undefined]]);
  });
});

Deno.test("Send test event that the receiver refuses is reported as a failure, not as sent", async () => {
  await withHook(async (t, { id }, client) => {
    // The console's copy of the secret no longer matches the one the platform signs with.
    const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    await t.app.webhooks.communities.save({ ...community, clientSecret: btoa("not the platform's secret, 32 b!") });
    await t.app.webhooks.communities.revokePreviousSecret("sandbox-tenant");
    const res = await client.post(`/webhooks/${id}/test`, await testEventFields(client, id));
    await res.body?.cancel();
    assert.equal(res.headers.get("location"), `/webhooks/${id}?notice=triggered&answer=401`);
    const page = await client.text(res.headers.get("location")!, 200);
    assert.equal(
      textOf(page, ".error, [role=alert]"),
      "The test event failed: the platform posted it, and this console's receiver refused it with 401 (the delivery below says why).",
    );
    assert.equal(textOf(page, ".notice, [role=status]"), "");
    const rows = await t.app.deliveries.list({ hookId: id });
    assert.equal(rows[0]?.status, 401);
  });
});

Deno.test("Send test event on a disabled hook says it is disabled and offers Enable", async () => {
  await withHook(async (t, { id }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    await (await client.post(`/webhooks/${id}/enabled`, { _csrf: csrf, enabled: "0" })).body?.cancel();
    const res = await client.post(`/webhooks/${id}/test`, await testEventFields(client, id));
    const body = await (await client.follow(res)).text();
    assert.equal(res.status, 303);
    assert.doesNotMatch(body, /no such hook/);
    assert.match(textOf(body, ".error, [role=alert]"), /No test event was sent: the hook is disabled/);
    const page = parse(body);
    try {
      const form = page.document.querySelector("#offer-enable form");
      assert.equal(form?.getAttribute("action"), `/webhooks/${id}/enabled`);
      assert.equal((form?.querySelector("input[name=enabled]") as HTMLInputElement).value, "1");
      assert.equal(form?.querySelector("button")?.textContent, "Enable");
    } finally {
      page.close();
    }
    // Enable, and the test event goes.
    await (await client.post(`/webhooks/${id}/enabled`, { _csrf: csrf, enabled: "1" })).body?.cancel();
    const again = await client.post(`/webhooks/${id}/test`, await testEventFields(client, id));
    await again.body?.cancel();
    assert.equal(again.headers.get("location"), `/webhooks/${id}?notice=triggered&answer=200`);
    assert.equal((await t.app.deliveries.list({ hookId: id })).length, 1);
  });
});

Deno.test("Send test event on a hook unregistered in another tab says it is unregistered", async () => {
  await withHook(async (_t, { id }, client) => {
    const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
    await (await client.post(`/webhooks/${id}/unregister`, { _csrf: csrf, confirm: "yes" })).body?.cancel();
    const res = await client.post(`/webhooks/${id}/test`, { _csrf: csrf });
    const body = await res.text();
    assert.equal(res.status, 404);
    assert.match(textOf(body, ".error, [role=alert]"), /The webhook is unregistered: no test event was sent/);
    assert.match(textOf(body, "#webhook-gone"), /unregistered \(perhaps in another tab/);
  });
});

Deno.test("Send test event on a hook deleted on the platform says so and points to reconcile", async () => {
  await withHook(async (t, { id, platformId }, client) => {
    assert.ok(await t.app.sandboxApi!.deleteHook(platformId));
    const res = await client.post(`/webhooks/${id}/test`, await testEventFields(client, id));
    const body = await res.text();
    assert.equal(res.status, 502);
    assert.match(textOf(body, ".error, [role=alert]"), /the platform has no such hook any more .* Reconcile/);
  });
});

Deno.test("the page of an undelivered test event names no reason it did not log itself, whatever the URL holds", async () => {
  await withHook(async (_t, { id }, client) => {
    const body = await client.text(`/webhooks/${id}?notice=triggered&answer=0&why=Your+session+expired`, 200);
    const error = textOf(body, ".error, [role=alert]");
    assert.equal(error, "The platform could not reach the callback. The attempt is logged in the deliveries below.");
    assert.doesNotMatch(body, /session expired/);
  });
});
