/**
 * With Deno's OpenTelemetry, a `write` receiver's spans are recorded as data
 * and made after the answer, mostly on the span thread (a worker). What is
 * exported is what the request saw: each postback's `webhooks.receive` under
 * Deno's server span, its `webhooks.commit` under it, inside its times, with
 * its attributes; none is lost when the process ends at once after the last
 * answer, whether by `Deno.exit()` with batches still on the thread or by
 * running out of work (the thread does not keep it alive for long).
 */

import assert from "node:assert/strict";
import { startOtlpReceiver } from "../../otlp_receiver.ts";
import { runChild } from "./_helpers.ts";

for (const [how, count] of [["exit", 512], ["end", 600], ["exit", 3]] as const) {
  Deno.test(`a write receiver's spans, made later, all arrive whole: ${count} postbacks, then ${how}`, async () => {
    const otlp = startOtlpReceiver();
    try {
      const started = performance.now();
      const printed = await runChild("_span_thread_child.ts", otlp.env(60_000), [how, String(count)]);
      const took = performance.now() - started;
      assert.deepEqual(JSON.parse(printed), { 200: count });
      // The processor's own delay is long (60 s): only the export at the end can bring the spans. The span thread is
      // stopped soon after its last batch: it never holds the process for long.
      assert.ok(took < 15_000, `the child took ${took} ms`);
      const receives = () => otlp.spans().filter((s) => s.name === "webhooks.receive");
      await otlp.waitFor(() => receives().length >= count, `${count} receive spans`, 5000);
      const spans = otlp.spans();
      const byId = new Map(spans.map((span) => [span.spanId, span]));
      assert.equal(receives().length, count);
      const commits = spans.filter((s) => s.name === "webhooks.commit");
      assert.equal(commits.length, count);
      for (const receive of receives()) {
        const server = byId.get(receive.parentSpanId);
        assert.equal(server?.kind, 2, "a receive span's parent is Deno's server span");
        assert.equal(server.traceId, receive.traceId);
        assert.deepEqual(
          { ...receive.attributes },
          { "webhooks.outcome": "accepted", "webhooks.items": 1, "webhooks.tenant_id": "tenant-thread" },
        );
        assert.ok(server.startMs - 1 <= receive.startMs && receive.endMs <= server.endMs + 1, "inside the server's");
      }
      const parents = new Set(commits.map((commit) => commit.parentSpanId));
      assert.equal(parents.size, count, "one commit span under each receive span");
      for (const commit of commits) {
        const receive = byId.get(commit.parentSpanId)!;
        assert.equal(receive.name, "webhooks.receive");
        assert.ok(receive.startMs <= commit.startMs && commit.endMs <= receive.endMs, "inside the receive span");
        assert.ok(Number(commit.attributes["webhooks.commit.postbacks"]) >= 1);
      }
    } finally {
      await otlp.close();
    }
  });
}
