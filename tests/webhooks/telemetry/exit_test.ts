/**
 * The receiver's spans wait a little before they go to Deno's exporter
 * (they end in batches): a process that ends right after answering still
 * exports them, whether it calls `Deno.exit()` or simply has nothing left
 * to do.
 */

import assert from "node:assert/strict";
import { startOtlpReceiver } from "../../otlp_receiver.ts";

const ROOT = new URL("../../../", import.meta.url);

for (const how of ["exit", "end"]) {
  Deno.test(`a process that ends (${how}) right after answering still exports the request's spans`, async () => {
    const otlp = startOtlpReceiver();
    try {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--config",
          new URL("deno.json", ROOT).pathname,
          new URL("_exit_child.ts", import.meta.url).pathname,
          how,
        ],
        // The processor's own delay is long (60 s): only the export at the end can bring the spans.
        env: { ...otlp.env(60_000) },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      assert.equal(new TextDecoder().decode(out.stdout).trim(), "answered");
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
