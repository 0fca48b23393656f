// Two consoles on one KV file: a hook's events (or its enabled switch) saved on one while the other unregisters it.
// The save read the hook, then the platform answered its PUT 404 (the hook deleted meanwhile by the other console):
// the answer is the page of a webhook that is gone, saying so, not a 502 "The change failed" above the page of a
// hook that no longer exists, whose every form then led to "not found".

import assert from "node:assert/strict";
import { Client, connectSandbox, csrfOf, parse, placeOf, registerHook, signIn, startConsole } from "./_helpers.ts";
import { SANDBOX_KV_PREFIX } from "../../sandbox/mod.ts";

const CHANGES: { action: string; fields: (origin: string) => Record<string, string | string[]> }[] = [
  { action: "events", fields: (origin) => ({ events: ["discussion"], object: placeOf(origin) }) },
  { action: "enabled", fields: () => ({ enabled: "0" }) },
];

Deno.test("a hook's change saved on one console while another unregisters it answers that the hook is gone", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  /** Set while a test's PUT is to meet the other console's Unregister first. */
  let before: (() => Promise<void>) | undefined;
  const first = await startConsole({
    kvPath,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const hold = before;
      if (request.method === "PUT" && /\/api\/core\/v3\/webhooks\/\d+$/.test(request.url) && hold) {
        before = undefined;
        await hold();
      }
      return await fetch(request);
    },
  });
  const second = await startConsole({ kvPath });
  try {
    const client = await signIn(first.origin);
    await connectSandbox(client, first.origin);
    const other = new Client(second.origin); // the same user's session, in a tab of the second console
    for (const [name, value] of client.cookies) other.cookies.set(name, value);
    for (const { action, fields } of CHANGES) {
      const id = await registerHook(client, first.origin);
      const ref = (await first.app.webhooks.findByID(id))!.entity.resources!.self!.ref!;
      const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
      const platformKey = [...SANDBOX_KV_PREFIX, "webhook", "sandbox-tenant", Number(ref.split("/").pop())];
      assert.ok((await first.kv.get(platformKey)).value, "the sandbox's record of the hook");
      before = async () => {
        const res = await other.post(`/webhooks/${id}/unregister`, { _csrf: csrf, confirm: "yes" });
        await res.body?.cancel();
        assert.equal(res.headers.get("location"), "/webhooks?notice=unregistered", `${action}: ${res.status}`);
      };
      const res = await client.post(`/webhooks/${id}/${action}`, { _csrf: csrf, ...fields(first.origin) });
      const body = await res.text();
      assert.equal(before, undefined, `${action}: the other console's Unregister came first`);
      const page = parse(body);
      try {
        assert.equal(res.status, 404, `${action}: ${page.document.querySelector("[role=alert]")?.textContent}`);
        assert.ok(page.document.querySelector("#webhook-gone"), `${action}: the page says the hook is gone`);
        assert.match(page.document.querySelector("[role=alert]")?.textContent ?? "", /unregistered/);
      } finally {
        page.close();
      }
      // The console and the platform agree: no record, no hook.
      assert.equal(await first.app.webhooks.findByID(id), null);
      assert.equal(await second.app.webhooks.findByID(id), null);
      // The sandbox (the platform) keeps its hooks in this KV: that one is gone there too.
      assert.equal((await first.kv.get(platformKey)).value, null);
    }
  } finally {
    await second.close();
    await first.close();
    await Deno.remove(dir, { recursive: true });
  }
});
