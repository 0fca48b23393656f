// The console's "Forward to" page (docs/relay.md): a hook's destination is
// added with its secret shown once, the console's own relay worker forwards a
// sandbox postback to a test app on 127.0.0.1, signed; disable stops it; a
// 410 leaves a dead letter that Redeliver sends again under the same id.

import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { connectSandbox, csrfOf, parse, registerHook, signIn, startConsole, trigger } from "./_helpers.ts";
import { startApp, until } from "../webhooks/relay/fixtures.ts";

Deno.test("Forward to: add shows the secret once, the console's worker forwards, disable stops, a dead letter is redelivered", async () => {
  const t = await startConsole({ relayWorker: true });
  let status = 200;
  const app = startApp(() => new Response("ok", { status }));
  try {
    const client = await signIn(t.origin);
    await connectSandbox(client, t.origin);
    const id = await registerHook(client, t.origin);
    const platformId = String((await t.app.webhooks.findByID(id))!.entity.id);
    const path = `/webhooks/${id}/forward`;
    const empty = await client.text(path, 200);
    assert.match(empty, /No destination yet/);
    const csrf = csrfOf(empty);

    const refused = await client.post(path, { _csrf: csrf, url: "ftp://files.example/x" });
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /No destination was added: .*'url' must be an absolute http\(s\) URL/);

    const added = await client.post(path, { _csrf: csrf, url: app.url });
    assert.equal(added.status, 303);
    const page = parse(await (await client.follow(added)).text());
    let secret: string, destinationId: string;
    try {
      secret = page.document.querySelector("#forward-secret")!.textContent!;
      destinationId = page.document.querySelector("#forward-destinations tr[data-destination]")!.getAttribute(
        "data-destination",
      )!;
    } finally {
      page.close();
    }
    assert.match(secret, /^whsec_/);
    assert.doesNotMatch(await client.text(path, 200), /whsec_/); // shown once

    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    await app.waitFor(1);
    const got = app.received[0];
    const body = new Webhook(secret).verify(got.body, {
      "webhook-id": got.id,
      "webhook-timestamp": got.timestamp,
      "webhook-signature": got.signature,
    }) as { data: { webhook: string } };
    assert.equal(body.data.webhook, id);

    const disabled = await client.post(`${path}/${destinationId}/enabled`, { _csrf: csrf, enabled: "0" });
    assert.equal(disabled.status, 303);
    await disabled.body?.cancel();
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(app.received.length, 1);

    const enabled = await client.post(`${path}/${destinationId}/enabled`, { _csrf: csrf, enabled: "1" });
    await enabled.body?.cancel();
    status = 410;
    assert.deepEqual(await trigger(t.origin, { webhookId: platformId }), [200]);
    await app.waitFor(2);
    let deadId = "";
    await until(
      async () => {
        const html = await client.text(path, 200);
        deadId = /data-entry="([^"]+)"/.exec(html)?.[1] ?? "";
        return deadId !== "" && /disabled/.test(html);
      },
      5_000,
      "the dead letter",
    );
    assert.equal(deadId, app.received[1].id);
    status = 200;
    await (await client.post(`${path}/${destinationId}/enabled`, { _csrf: csrf, enabled: "1" })).body?.cancel();
    const redelivered = await client.post(`${path}/redeliver/${deadId}`, { _csrf: csrf });
    assert.equal(redelivered.headers.get("location"), `${path}?notice=redelivered`);
    await redelivered.body?.cancel();
    await app.waitFor(3);
    assert.equal(app.received[2].id, deadId);

    const removed = await client.post(`${path}/${destinationId}/remove`, { _csrf: csrf });
    await removed.body?.cancel();
    assert.match(await client.text(path, 200), /No destination yet/);
  } finally {
    await t.close();
    await app.close();
  }
});
