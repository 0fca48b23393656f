/**
 * A destination whose stored URL ends in a fragment (a record edited by
 * hand: add and update strip one), with Deno's OpenTelemetry on. Deno's
 * fetch span records `url.full` with whatever URL it was given, fragment
 * and all, though a fragment is never sent: the fragment's token must reach
 * no export, under a parent-based sampler (where the attempt's fetch runs
 * under the context marked not sampled, as for a query) and under Deno's
 * own sampler (which exports the fetch span all the same).
 */

import assert from "node:assert/strict";
import { type OtlpReceiver, startOtlpReceiver } from "../../otlp_receiver.ts";
import { runChild } from "./_helpers.ts";

/** Runs the child in `env` and checks the app got `/fragment`; hands over the receiver and the token. */
async function delivering(
  env: Record<string, string>,
  check: (otlp: OtlpReceiver, token: string) => Promise<void>,
): Promise<void> {
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
      ...env,
      APP_URL: `http://127.0.0.1:${app.addr.port}`,
      FRAGMENT_TOKEN: token,
    });
    assert.deepEqual(paths, ["/fragment"]);
    await check(otlp, token);
  } finally {
    await otlp.close();
    await app.shutdown();
  }
}

const deliverOf = (otlp: OtlpReceiver) => otlp.spans().find((s) => s.name === "webhooks.relay.deliver");

Deno.test("with OTEL_DENO=true and a parent-based sampler a destination URL's fragment reaches no export", async () => {
  await delivering({ OTEL_TRACES_SAMPLER: "parentbased_always_on" }, async (otlp, token) => {
    await otlp.waitFor(() => deliverOf(otlp) !== undefined, "the deliver span");
    const deliver = deliverOf(otlp)!;
    assert.equal(deliver.attributes["webhooks.outcome"], "delivered");
    assert.deepEqual(otlp.spans().filter((s) => s.traceId === deliver.traceId).map((s) => s.name), [
      "webhooks.relay.deliver",
    ]);
    assert.ok(!otlp.text().includes(token), "an export holds the destination URL's fragment");
  });
});

Deno.test("with OTEL_DENO=true and Deno's default sampler a destination URL's fragment reaches no export", async () => {
  await delivering({}, async (otlp, token) => {
    // Deno's sampler exports the fetch span under the deliver span: it names the URL, without the fragment.
    const fetchOf = () => otlp.spans().find((s) => s.parentSpanId === deliverOf(otlp)?.spanId);
    await otlp.waitFor(() => fetchOf() !== undefined, "the deliver span and its fetch span");
    assert.equal(fetchOf()!.attributes["url.path"], "/fragment");
    assert.ok(!otlp.text().includes(token), "an export holds the destination URL's fragment");
  });
});
