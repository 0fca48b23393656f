/**
 * A destination whose URL has a query holding a token, with Deno's
 * OpenTelemetry on: a child process runs a relay that delivers one postback
 * to two destinations of an app in this test's process (which exports
 * nothing, so that only the relay's side is exported): one at
 * `/query?token=...`, one at `/plain`. No exported byte holds the token;
 * the plain destination's attempt keeps Deno's fetch span under its
 * `webhooks.relay.deliver` span.
 */

import assert from "node:assert/strict";
import { startOtlpReceiver } from "../../otlp_receiver.ts";
import { runChild } from "./_helpers.ts";

Deno.test("with OTEL_DENO=true a destination URL's query token reaches no export", async () => {
  const requests: { path: string; traceparent: string | null }[] = [];
  const app = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    const url = new URL(request.url);
    requests.push({ path: url.pathname + url.search, traceparent: request.headers.get("traceparent") });
    return new Response("ok");
  });
  const otlp = startOtlpReceiver();
  try {
    const token = `query-token-${crypto.randomUUID()}`;
    const out = await Deno.makeTempFile();
    await runChild("_relay_query_child.ts", {
      ...otlp.env(200),
      TEST_OUT: out,
      APP_URL: `http://127.0.0.1:${app.addr.port}`,
      QUERY_TOKEN: token,
    });
    const ids = JSON.parse(await Deno.readTextFile(out)) as { query: string; plain: string };
    await Deno.remove(out);
    assert.deepEqual(requests.map((r) => r.path).sort(), ["/plain", `/query?token=${token}`]);

    const deliverOf = (id: string) =>
      otlp.spans().find((s) =>
        s.name === "webhooks.relay.deliver" && s.attributes["webhooks.relay.destination"] === id
      );
    await otlp.waitFor(() => deliverOf(ids.query) !== undefined && deliverOf(ids.plain) !== undefined, "both spans");
    for (const id of [ids.query, ids.plain]) {
      assert.equal(deliverOf(id)!.attributes["webhooks.outcome"], "delivered");
    }
    // The plain destination's attempt keeps its fetch span (and the trace context the app was sent).
    const plain = deliverOf(ids.plain)!;
    const fetches = otlp.spans().filter((s) => s.parentSpanId === plain.spanId);
    assert.deepEqual(fetches.map((s) => [s.name, s.kind, s.attributes["url.path"]]), [["POST", 3, "/plain"]]);
    const sent = requests.find((r) => r.path === "/plain")!.traceparent;
    assert.equal(sent, `00-${plain.traceId}-${fetches[0].spanId}-01`);

    // No exported byte holds the token.
    assert.ok(!otlp.text().includes(token), "an export holds the destination URL's query token");
  } finally {
    await otlp.close();
    await app.shutdown();
  }
});
