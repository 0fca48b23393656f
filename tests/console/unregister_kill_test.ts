// A console killed right after its Unregister removed the hook's record
// (on the platform and in KV) but before it forgot what it keeps beside the
// record: the hook's "Forward to" destinations (secret and all) and its
// receiver's keys. The user sends Unregister again, to another console on
// the same KV file: that one answers that the hook is gone, and must not
// leave those behind on no page.
//
// The killed console's committed step is taken here by the library on the
// same KV file (`webhooks.unregister`, what the console calls first): a
// SIGKILL cannot be timed into the gap of a few milliseconds between that
// commit and the next one.

import assert from "node:assert/strict";
import { connectSandbox, csrfOf, registerHook, signIn } from "./_helpers.ts";
import { startConsoleProcess } from "./_main_process.ts";
import { createRelay, createWebhooks } from "../../webhooks/mod.ts";
import { receiverByHookPrefix } from "../../console/lib/kv_keys.ts";

Deno.test("Unregister sent again to another console after the first died past its record's removal forgets the hook's destinations and receiver", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  const survivor = await startConsoleProcess({ KV_PATH: kvPath, HOST: "127.0.0.1", SANDBOX: "on" });
  const kv = await Deno.openKv(kvPath);
  const relay = createRelay(kv);
  try {
    const client = await signIn(survivor.origin);
    await connectSandbox(client, survivor.origin);
    const id = await registerHook(client, survivor.origin);
    const destination = await relay.destinations.add({ url: "https://app.example/only", hookIds: [id] });
    const receivers = async () => (await Array.fromAsync(kv.list({ prefix: receiverByHookPrefix(id) }))).length;
    assert.equal(await receivers(), 1, "the hook has its receiver");

    // The killed console: its Unregister got as far as removing the record.
    await createWebhooks(kv).unregister(id);
    assert.equal(await createWebhooks(kv).findByID(id), null);

    const csrf = csrfOf(await client.text("/webhooks", 200));
    const again = await client.post(`/webhooks/${id}/unregister`, { _csrf: csrf, confirm: "yes" });
    const html = await again.text();
    assert.ok(again.status < 500, html.slice(0, 300));
    assert.match(html, /unregistered already|gone/i);
    assert.equal(await relay.destinations.get(destination.id), null, "the destination is left, on no page");
    assert.equal(await receivers(), 0, "the receiver's keys are left");
  } finally {
    await relay.close();
    kv.close();
    await survivor.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
