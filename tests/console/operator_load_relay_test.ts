// A Forward to destination added, disabled and enabled again through the
// console's page while the platform's postbacks flow (16 at once): every
// postback answered 200 after the add and before the disable, or after the
// enable, is forwarded to the app, none dropped (docs/relay.md: a disabled
// destination gets no new entries; those it had wait and go once enabled).

import assert from "node:assert/strict";
import { csrfOf, withHook } from "./_helpers.ts";
import { addDestination } from "./_forward_forms.ts";
import { lostOrDoubled, storedTitles, tally, underLoad } from "./_operator_load.ts";

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("a destination added, disabled and enabled again while postbacks flow: each 200 after the add is forwarded", async () => {
  const received = new Set<string>();
  const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.json();
    received.add(body.data.activity.title);
    return new Response(null, { status: 204 });
  });
  try {
    await withHook(async (t, hook, client) => {
      const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
      let addedAt = 0;
      let disabling = 0;
      let enabledAt = 0;
      const act = (async () => {
        await pause(500);
        const { id } = await addDestination(client, hook.id, `http://127.0.0.1:${app.addr.port}/in`);
        addedAt = Date.now();
        await pause(500);
        disabling = Date.now();
        const path = `/webhooks/${hook.id}/forward`;
        const off = await client.post(`${path}/${id}/enabled`, {
          _csrf: csrfOf(await client.text(path, 200)),
          enabled: "0",
        });
        await off.body?.cancel();
        assert.equal(off.status, 303);
        await pause(500);
        const on = await client.post(`${path}/${id}/enabled`, {
          _csrf: csrfOf(await client.text(path, 200)),
          enabled: "1",
        });
        await on.body?.cancel();
        assert.equal(on.status, 303);
        enabledAt = Date.now();
      })();
      const answers = await underLoad({ ...hook, community, until: act, tag: "fwd", tailMs: 500 });
      await act;
      await t.app.deliveries.flush();
      const counts = tally(answers);
      assert.deepEqual(lostOrDoubled(answers, await storedTitles(t.app.deliveries, "fwd")), [], JSON.stringify(counts));
      const due = answers.filter((a) =>
        a.status === 200 && (a.sent > addedAt && a.at < disabling || a.sent > enabledAt)
      ).map((a) => a.title);
      assert.ok(due.length > 0, JSON.stringify(counts));
      const deadline = Date.now() + 20_000;
      while (due.some((title) => !received.has(title)) && Date.now() < deadline) await pause(200);
      const missing = due.filter((title) => !received.has(title));
      assert.deepEqual(missing.slice(0, 10), [], `${missing.length} of ${due.length} never forwarded`);
    }, { deliveries: { retain: 100_000 }, relayWorker: true });
  } finally {
    await app.shutdown();
  }
});
