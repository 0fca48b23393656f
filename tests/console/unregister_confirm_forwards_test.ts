// Unregister removes the hook's own "Forward to" destinations, and removing a destination deletes what still waits
// for it (docs/relay.md): postbacks the console answered 200 but has not forwarded yet never reach the app. The
// confirmation page said only that the destinations go, so an operator unregistering under load lost forwards without
// being told. It must say, before the press, that forwards still waiting are dropped with them.

import assert from "node:assert/strict";
import { withHook } from "./_helpers.ts";
import { addDestination } from "./_forward_forms.ts";

Deno.test("the Unregister confirmation says that postbacks not yet forwarded to its destinations are dropped", async () => {
  await withHook(async (_t, hook, client) => {
    await addDestination(client, hook.id, "https://app.example/mine");
    const page = await client.text(`/webhooks/${hook.id}/unregister`, 200);
    const prose = page.replace(/<[^>]+>/g, " ").replaceAll("&quot;", '"').replace(/\s+/g, " ");
    assert.match(prose, /"Forward to" destinations/);
    assert.match(prose, /postbacks? (not yet|still waiting to be) forwarded to them (are|is) dropped/i, prose);
  });
});
