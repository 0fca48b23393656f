// The reconcile page's fix when the platform fails meanwhile: the page shown when it was read, the platform answers
// 503 to the fix's list. The fix answers 502 with the reason on the page, and no record is removed.

import assert from "node:assert/strict";
import { csrfOf, parse, withSignedIn } from "./_helpers.ts";

Deno.test("a reconcile fix whose platform list fails answers 502 with the reason, and removes nothing", async () => {
  let down = false;
  let asked = 0;
  const platform = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    if (new URL(req.url).pathname !== "/api/core/v3/webhooks") return new Response("no", { status: 404 });
    asked++;
    return down ? new Response("maintenance", { status: 503 }) : Response.json({ list: [], links: {} }); // the platform has no hook: the record below is dangling
  });
  const baseUrl = `http://127.0.0.1:${platform.addr.port}`;
  try {
    await withSignedIn({ connect: false }, async ({ t, client }) => {
      const hooks = t.app.webhooks;
      await hooks.communities.save({
        name: "Flaky",
        tenantId: "tenant-flaky",
        baseUrl,
        oauth: { access_token: "flaky-access", refresh_token: "flaky-refresh" },
      });
      const record = {
        id: "hook-flaky",
        tenantId: "tenant-flaky",
        entity: { id: "9", resources: { self: { ref: `${baseUrl}/api/core/v3/webhooks/9` } } },
      };
      await hooks.save(record);
      const html = await client.text("/communities/tenant-flaky/reconcile", 200);
      assert.equal(asked, 1);
      down = true;
      const res = await client.post("/communities/tenant-flaky/reconcile", { _csrf: csrfOf(html) });
      const body = await res.text();
      assert.equal(res.status, 502);
      assert.equal(asked, 2);
      const page = parse(body);
      try {
        assert.match(page.document.querySelector("#page-error")?.textContent ?? "", /503/);
      } finally {
        page.close();
      }
      assert.doesNotMatch(body, /flaky-access|flaky-refresh/);
      assert.deepEqual(await hooks.findByID("hook-flaky"), record);
    });
  } finally {
    await platform.shutdown();
  }
});
