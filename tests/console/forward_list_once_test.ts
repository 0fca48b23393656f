// Each console page that shows a hook's destinations reads the relay's list
// of destinations once per request: the hook's page after Send test event
// read it twice (its "Forward to your app" section, then the test event's
// forwards), each time every destination record before the relay kept them.
// A `list()` is one read of the destinations' version key while nothing
// changed, so a page's reads of that key count its lists.

import assert from "node:assert/strict";
import { type Client, csrfOf, trigger, withSignedInHook } from "./_helpers.ts";
import { startApp } from "../webhooks/relay/fixtures.ts";

const VERSION = "relay_destinations_version";

/** `raw`, counting its gets of the destinations' version key and the destination records its lists yield. */
function counted(raw: Deno.Kv): { kv: Deno.Kv; reads: { versions: number; records: number } } {
  const reads = { versions: 0, records: 0 };
  const kv = new Proxy(raw, {
    get(target, prop) {
      if (prop === "get") {
        return (...args: Parameters<Deno.Kv["get"]>) => {
          if (args[0].length === 1 && args[0][0] === VERSION) reads.versions++;
          return target.get(...args);
        };
      }
      if (prop === "list") {
        return async function* (...args: Parameters<Deno.Kv["list"]>) {
          for await (const entry of target.list(...args)) {
            if (entry.key[0] === "relay_destination") reads.records++;
            yield entry;
          }
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv, reads };
}

/** The newest delivery id of a hook, from its deliveries list. */
async function newestDelivery(client: Client, hookId: string): Promise<string> {
  const html = await client.text(`/deliveries?hook=${hookId}`, 200);
  return /href="\/deliveries\/(q[^"?]+)"/.exec(html)?.[1] ?? "";
}

Deno.test("the hook's, Forward to and delivery pages list the destinations once each", async () => {
  const { kv, reads } = counted(await Deno.openKv(":memory:"));
  const app = startApp();
  try {
    await withSignedInHook({ kv }, async ({ t, client, hookId, platformId }) => {
      const forward = `/webhooks/${hookId}/forward`;
      for (const path of ["a", "b"]) {
        const form = await client.text(forward, 200);
        await (await client.post(forward, { _csrf: csrfOf(form), url: `${app.url}/${path}` })).body?.cancel();
      }
      assert.deepEqual(await trigger(t.origin, { webhookId: await platformId() }), [200]);
      const delivery = await newestDelivery(client, hookId);
      assert.notEqual(delivery, "");
      const pages = {
        hook: `/webhooks/${hookId}?notice=triggered`,
        forward,
        delivery: `/deliveries/${delivery}`,
      };
      for (const [name, path] of Object.entries(pages)) {
        await client.text(path, 200); // the relay's list read, if a change left it behind
        const before = { ...reads };
        const html = await client.text(path, 200);
        if (name !== "forward") assert.match(html, /id="(test-forwards|delivery-forwards)"/, name);
        assert.equal(reads.records - before.records, 0, `the ${name} page read destination records`);
        assert.equal(reads.versions - before.versions, 1, `the ${name} page's lists of the destinations`);
      }
    });
  } finally {
    await app.close();
  }
});
