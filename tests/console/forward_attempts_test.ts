// A delivery's forwards in the console (issue 45): the delivery's page shows
// each forward attempt (answer, time, duration) and the next one; the hook's
// page links to "Forward to" and, after Send test event, says how the test
// event's forward went. A real test app on 127.0.0.1 is the destination.

import assert from "node:assert/strict";
import { type Client, csrfOf, parse, testEventFields, trigger, withSignedInHook } from "./_helpers.ts";
import { startApp, until } from "../webhooks/relay/fixtures.ts";

/** The newest delivery id of a hook, from its deliveries list. */
async function newestDelivery(client: Client, hookId: string): Promise<string> {
  const html = await client.text(`/deliveries?hook=${hookId}`, 200);
  return /href="\/deliveries\/(q[^"?]+)"/.exec(html)?.[1] ?? "";
}

Deno.test("a delivery's page shows its forward attempts: a refused one with the next attempt, a delivered one", async () => {
  let status = 500;
  const app = startApp(() => new Response(status === 200 ? "ok" : "busy", { status }));
  try {
    await withSignedInHook({ relayWorker: true }, async ({ t, client, hookId: id, platformId: readPlatformId }) => {
      const platformId = await readPlatformId();
      const forward = `/webhooks/${id}/forward`;
      const before = await client.text(forward, 200);
      await (await client.post(forward, { _csrf: csrfOf(before), url: app.url })).body?.cancel();

      assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
      await app.waitFor(1);
      const failed = await newestDelivery(client, id);
      assert.notEqual(failed, "");
      let html = "";
      await until(async () => /HTTP 500/.test(html = await client.text(`/deliveries/${failed}`, 200)), 5_000, "500");
      let page = parse(html);
      try {
        const section = page.document.querySelector("#delivery-forwards")!;
        assert.equal(section.querySelector(`[data-entry="${app.received[0].id}"] h3`)?.textContent, app.url);
        assert.equal(section.querySelector(".forward-state")?.textContent, "Waiting for the next attempt");
        assert.match(section.textContent!, /1 attempt; next attempt/);
        const cells = [...section.querySelectorAll(".forward-attempts tbody td")].map((td) => td.textContent);
        assert.equal(cells.length, 3);
        assert.match(cells[1]!, /^HTTP 500$/);
        assert.match(cells[2]!, /^\d+(\.\d)? ms$/);
        assert.ok(section.querySelector(".forward-attempts time"), "the attempt's time");
        assert.equal(section.querySelector("#delivery-forward-link")?.getAttribute("href"), forward);
      } finally {
        page.close();
      }
      assert.doesNotMatch(html, /whsec_/);

      status = 200;
      assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
      await app.waitFor(2);
      const delivered = await newestDelivery(client, id);
      assert.notEqual(delivered, failed);
      await until(async () => /HTTP 200/.test(html = await client.text(`/deliveries/${delivered}`, 200)), 5_000, "200");
      page = parse(html);
      try {
        const section = page.document.querySelector("#delivery-forwards")!;
        assert.equal(section.querySelector(".forward-state")?.textContent, "Delivered");
        assert.doesNotMatch(section.textContent!, /next attempt/);
      } finally {
        page.close();
      }
    });
  } finally {
    await app.close();
  }
});

Deno.test("a hook's page links to Forward to, and after Send test event says how its forward went", async () => {
  const app = startApp();
  try {
    await withSignedInHook({ relayWorker: true }, async ({ client, hookId: id }) => {
      let html = await client.text(`/webhooks/${id}`, 200);
      let page = parse(html);
      try {
        assert.equal(page.document.querySelector("#forward-link")?.getAttribute("href"), `/webhooks/${id}/forward`);
        assert.match(page.document.querySelector("#forward-summary")!.textContent!, /not forwarded anywhere yet/);
      } finally {
        page.close();
      }
      const forward = `/webhooks/${id}/forward`;
      await (await client.post(forward, { _csrf: csrfOf(await client.text(forward, 200)), url: app.url })).body
        ?.cancel();

      const sent = await client.post(`/webhooks/${id}/test`, await testEventFields(client, id));
      assert.equal(sent.status, 303);
      await sent.body?.cancel();
      // The answer came once the forward was attempted: the page it leads to says how it went.
      assert.equal(app.received.length, 1);
      html = await client.text(sent.headers.get("location")!, 200);
      page = parse(html);
      try {
        assert.match(page.document.querySelector("#forward-summary")!.textContent!, /forwarded to 1 of 1 destination/);
        const line = page.document.querySelector("#test-forwards li")?.textContent ?? "";
        assert.equal(line.startsWith(`Test event forwarded to ${app.url}: delivered, last attempt HTTP 200 in `), true);
      } finally {
        page.close();
      }
      assert.doesNotMatch(html, /whsec_/);
      // Without the test event's notice, the page does not repeat it.
      assert.doesNotMatch(await client.text(`/webhooks/${id}`, 200), /id="test-forwards"/);
    });
  } finally {
    await app.close();
  }
});
