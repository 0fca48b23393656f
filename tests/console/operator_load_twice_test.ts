// Two operators unregister the same hook at once, one through the console's
// page and one with the CLI on its KV file, while the hook's postbacks flow
// (16 at once): neither is told a failure that did not happen, nothing is
// left behind (the hook's destinations), and every postback answered 200 is
// stored once; the rest are 404.

import assert from "node:assert/strict";
import { csrfOf, withHook } from "./_helpers.ts";
import { addDestination } from "./_forward_forms.ts";
import { CLI, lostOrDoubled, storedTitles, tally, underLoad } from "./_operator_load.ts";
import { createRelay } from "../../webhooks/mod.ts";

const wait = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

// The CLI starts in a few hundred ms: negative delays hold the page back instead.
for (const delayMs of [0, 120, -150, -250, -350]) {
  Deno.test(`Unregister on the page and 'hooks unregister' at once (the CLI ${delayMs} ms after the page) while postbacks flow`, async () => {
    const dir = await Deno.makeTempDir();
    const kvPath = `${dir}/console.kv`;
    try {
      await withHook(async (t, hook, client) => {
        const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
        const { id: destination } = await addDestination(client, hook.id, "http://127.0.0.1:9/in");
        let page = { status: 0, html: "" };
        let cli = { code: -1, stderr: "" };
        const act = (async () => {
          await new Promise((r) => setTimeout(r, 400));
          const csrf = csrfOf(await client.text("/webhooks", 200));
          const command = new Deno.Command(Deno.execPath(), {
            args: ["run", "-A", CLI, "--kv", kvPath, "hooks", "unregister", hook.id],
            stdout: "null",
            stderr: "piped",
          });
          const [res, out] = await Promise.all([
            wait(-delayMs).then(() => client.post(`/webhooks/${hook.id}/unregister`, { _csrf: csrf, confirm: "yes" })),
            wait(delayMs).then(() => command.output()),
          ]);
          page = { status: res.status, html: res.status === 303 ? "" : await res.text() };
          cli = { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
        })();
        const answers = await underLoad({ ...hook, community, until: act, tag: "twice", tailMs: 500 });
        await act;
        await t.app.deliveries.flush();
        const counts = tally(answers);
        assert.deepEqual(
          lostOrDoubled(answers, await storedTitles(t.app.deliveries, "twice")),
          [],
          JSON.stringify(counts),
        );
        assert.ok(Object.keys(counts).every((s) => s === "200" || s === "404"), JSON.stringify(counts));
        assert.ok(page.status < 500, page.html.slice(0, 300));
        assert.doesNotMatch(page.html, /Unregistering failed/, "the page says it failed, while the hook is gone");
        assert.ok(cli.code === 0 || !/\n\s+at |locked/.test(cli.stderr), cli.stderr);
        assert.equal(await t.app.webhooks.findByID(hook.id), null);
        const relay = createRelay(t.kv);
        try {
          assert.equal(await relay.destinations.get(destination), null, "the hook's destination is left, on no page");
        } finally {
          await relay.close();
        }
      }, { kv: await Deno.openKv(kvPath), deliveries: { retain: 100_000 } });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
