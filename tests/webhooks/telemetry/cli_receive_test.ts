/**
 * The CLI's `receive` takes the package's instrumentation: run with
 * `OTEL_DENO=true`, its postbacks arrive at an OTLP/HTTP receiver in this
 * test as `webhooks.receive` spans under Deno's server span and as
 * `webhooks.receiver.requests` by outcome, and nothing exported holds the
 * client secret or the signature.
 */

import assert from "node:assert/strict";
import { signJiveExtn } from "../../../webhooks/mod.ts";
import { seedAcmeFile } from "./_helpers.ts";
import { startOtlpReceiver } from "../../otlp_receiver.ts";
import { endChild } from "../../_child.ts";

const ROOT = new URL("../../../", import.meta.url);
const SECRET = btoa(`cli secret ${crypto.randomUUID()}`);
const REF = "https://acme.example/api/core/v3/webhooks/7";

Deno.test("cli receive with OTEL_DENO=true exports its postbacks' spans and metrics", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_otel_" });
  const kvPath = `${dir}/webhooks.kv`;
  await seedAcmeFile(kvPath, SECRET, REF);
  const otlp = startOtlpReceiver();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", new URL("deno.json", ROOT).pathname, "webhooks/cli.ts", "receive", "--port", "0"],
    cwd: ROOT.pathname,
    env: { ...otlp.env(200), KV_PATH: kvPath },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const errLines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let seen = "";
    while (!/http:\/\/[\d.]+:\d+\//.test(seen)) {
      const { done, value } = await errLines.read();
      assert.ok(!done, `no address in: ${seen}`);
      seen += value;
    }
    const url = seen.match(/http:\/\/[\d.]+:\d+\//)![0];
    const authorization = await signJiveExtn(
      { clientId: "client-1", jiveUrl: "https://acme.example", tenantId: "tenant-acme" },
      SECRET,
    );
    const body = JSON.stringify([{ webhook: REF, activity: { verb: "jive:created" } }]);
    const res = await fetch(url + "hooks", { method: "POST", headers: { authorization }, body });
    assert.deepEqual(await res.json(), { received: 1 });
    const forged = await fetch(url + "hooks", { method: "POST", headers: { authorization: "JiveEXTN x=1" }, body });
    await forged.body?.cancel();
    assert.equal(forged.status, 401);

    const outcomes = () =>
      (otlp.metrics().get("webhooks.receiver.requests")?.points ?? []).map((p) =>
        `${p.attributes["webhooks.outcome"]} ${p.value}`
      ).sort().join(", ");
    await otlp.waitFor(() => outcomes() === "accepted 1, unauthorized 1", "the two outcomes");
    await otlp.waitFor(() => otlp.spans().filter((s) => s.name === "webhooks.receive").length === 2, "two spans");
    const spans = otlp.spans();
    for (const span of spans.filter((s) => s.name === "webhooks.receive")) {
      assert.equal(spans.find((s) => s.spanId === span.parentSpanId)?.kind, 2, "under Deno's server span");
    }
    // onPostback's done mark is the commit that stored it, under the accepted request's span.
    const accepted = spans.find((s) =>
      s.name === "webhooks.receive" && s.attributes["webhooks.outcome"] === "accepted"
    )!;
    await otlp.waitFor(() => otlp.spans().some((s) => s.name === "webhooks.commit"), "the commit span");
    const commit = otlp.spans().find((s) => s.name === "webhooks.commit")!;
    assert.equal(commit.parentSpanId, accepted.spanId);
    assert.equal(commit.attributes["webhooks.commit.postbacks"], 1);
    const exported = otlp.text();
    for (const secret of [SECRET, authorization, /signature=([^&\s]+)/.exec(authorization)![1]]) {
      assert.ok(!exported.includes(secret), "no secret exported");
    }
  } finally {
    await endChild(child, "SIGINT");
    await errLines.cancel();
    await child.stdout.cancel();
    await otlp.close();
    await Deno.remove(dir, { recursive: true });
  }
});
