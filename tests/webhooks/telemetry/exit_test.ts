/**
 * The receiver's spans wait a little before they go to Deno's exporter
 * (they end in batches): a process that ends right after answering still
 * exports them, whether it calls `Deno.exit()` or simply has nothing left
 * to do.
 */

import assert from "node:assert/strict";
import { startOtlpReceiver } from "../../otlp_receiver.ts";
import { runChild } from "./_helpers.ts";

for (const how of ["exit", "end"]) {
  Deno.test(`a process that ends (${how}) right after answering still exports the request's spans`, async () => {
    const otlp = startOtlpReceiver();
    try {
      // The processor's own delay is long (60 s): only the export at the end can bring the spans.
      const stdout = await runChild("_exit_child.ts", { ...otlp.env(60_000) }, [how]);
      assert.equal(stdout.trim(), "answered");
      await otlp.waitFor(() => otlp.spans().some((s) => s.name === "webhooks.commit"), "the commit span", 5000);
      const spans = otlp.spans();
      const receive = spans.find((s) => s.name === "webhooks.receive")!;
      assert.equal(receive.attributes["webhooks.tenant_id"], "tenant-exit");
      assert.equal(spans.find((s) => s.name === "webhooks.commit")!.parentSpanId, receive.spanId);
    } finally {
      await otlp.close();
    }
  });
}
