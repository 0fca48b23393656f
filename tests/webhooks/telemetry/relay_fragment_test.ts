/**
 * A destination whose stored URL ends in a fragment (a record edited by
 * hand: add and update strip one), with Deno's OpenTelemetry on and a
 * parent-based sampler: Deno's fetch span records `url.full` with the
 * fragment, so the attempt's fetch must run under the context marked not
 * sampled, as for a query. The fragment's token reaches no export; the
 * attempt's `webhooks.relay.deliver` span still does.
 */

import assert from "node:assert/strict";
import { startOtlpReceiver } from "../../otlp_receiver.ts";
import { runChild } from "./_helpers.ts";

Deno.test("with OTEL_DENO=true and a parent-based sampler a destination URL's fragment reaches no export", async () => {
  const paths: string[] = [];
  const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    paths.push(new URL(request.url).pathname);
    return new Response("ok");
  });
  const otlp = startOtlpReceiver();
  try {
    const token = `fragment-token-${crypto.randomUUID()}`;
    await runChild("_relay_fragment_child.ts", {
      ...otlp.env(200),
      OTEL_TRACES_SAMPLER: "parentbased_always_on",
      APP_URL: `http://127.0.0.1:${app.addr.port}`,
      FRAGMENT_TOKEN: token,
    });
    assert.deepEqual(paths, ["/fragment"]);
    const deliver = () => otlp.spans().find((s) => s.name === "webhooks.relay.deliver");
    await otlp.waitFor(() => deliver() !== undefined, "the deliver span");
    assert.equal(deliver()!.attributes["webhooks.outcome"], "delivered");
    assert.deepEqual(otlp.spans().filter((s) => s.traceId === deliver()!.traceId).map((s) => s.name), [
      "webhooks.relay.deliver",
    ]);
    assert.ok(!otlp.text().includes(token), "an export holds the destination URL's fragment");
  } finally {
    await otlp.close();
    await app.shutdown();
  }
});
