// The fixture of tests/console/with_hook_failure_test.ts, run there as a child `deno test`: two tests whose own
// assertion fails inside withHook after a sign-out and a sign-in, while a request they started is still sending its
// body (a stream never closed); the first started it with withHook's client, the second with a client of its own.

import assert from "node:assert/strict";
import { type Client, csrfOf, signIn, withHook } from "./_helpers.ts";

/** Starts a POST to the hook's label whose body never ends; its answer, whenever it comes, is not awaited. */
function startEndlessPost(client: Client, origin: string, id: string): void {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("name=x"));
    },
  });
  client.fetch(`/webhooks/${id}/label`, {
    method: "POST",
    body,
    headers: { origin, "content-type": "application/x-www-form-urlencoded" },
  }).then((res) => res.body?.cancel(), () => {});
}

for (const whose of ["withHook's client", "a client of its own"]) {
  Deno.test({
    name: `fixture: an assertion fails inside withHook with a request of ${whose} under way`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      await withHook(async (t, { id }, client) => {
        const csrf = csrfOf(await client.text(`/webhooks/${id}`, 200));
        const out = await client.post("/signout", { _csrf: csrf });
        await out.body?.cancel();
        await signIn(t.origin, client);
        startEndlessPost(whose === "withHook's client" ? client : await signIn(t.origin), t.origin, id);
        await new Promise((resolve) => setTimeout(resolve, 200)); // the request reaches the console
        assert.equal("held", "failed", `the fixture's own assertion (${whose})`);
      });
    },
  });
}
