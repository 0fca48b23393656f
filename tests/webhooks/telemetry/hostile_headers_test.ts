/**
 * Hostile headers through the CLI's `receive` with `OTEL_DENO=true`: a
 * 64 KiB header and 500 headers (Deno's server answers both 400 itself), 90
 * headers, a repeated `Authorization`, and JiveEXTN headers whose `tenant_id`
 * is 7,000 characters, carries CR/LF, ESC and NUL, or is unicode, from 23
 * tenants. Each is answered as by a `receive` without telemetry; the
 * package's span attributes stay within 512 characters and its metrics'
 * labels within its fixed words (one label set per outcome, whatever the
 * tenants named); no exported byte holds the client secret or a signature.
 */

import assert from "node:assert/strict";
import { signJiveExtn } from "../../../webhooks/mod.ts";
import { seedAcmeFile } from "./_helpers.ts";
import { startOtlpReceiver } from "../../otlp_receiver.ts";
import { endChild } from "../../_child.ts";
import { boundedTenant } from "../../../webhooks/telemetry/mod.ts";

const ROOT = new URL("../../../", import.meta.url);
const SECRET = btoa(`cli secret ${crypto.randomUUID()}`);
const REF = "https://acme.example/api/core/v3/webhooks/7";
const BODY = JSON.stringify([{ webhook: REF, activity: { verb: "jive:created" } }]);
/** The longest attribute value (the receiver's onAttempt cuts a header's value there too). */
const MAX_ATTRIBUTE_CHARS = 512;

/** Starts `receive` on `kvPath` in `env`; resolves its base URL and a function that stops it. */
async function startReceive(kvPath: string, env: Record<string, string>) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", new URL("deno.json", ROOT).pathname, "webhooks/cli.ts", "receive", "--port", "0"],
    cwd: ROOT.pathname,
    env: { ...env, KV_PATH: kvPath },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const errLines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!/http:\/\/[\d.]+:\d+\//.test(seen)) {
    const { done, value } = await errLines.read();
    assert.ok(!done, `no address in: ${seen}`);
    seen += value;
  }
  const url = seen.match(/http:\/\/[\d.]+:\d+\//)![0];
  const stop = async () => {
    const { killed } = await endChild(child, "SIGINT");
    let rest = seen;
    for (let r = await errLines.read(); !r.done; r = await errLines.read()) rest += r.value;
    await child.stdout.cancel();
    return { killed, stderr: rest };
  };
  return { url, stop };
}

/** The hostile requests, in order; `authorization` is a signed header of the stored community. */
function hostile(authorization: string): Headers[] {
  const forged = (tenant: string) =>
    new Headers({
      authorization: `JiveEXTN algorithm=HmacSHA256&client_id=c&jive_url=https%3A%2F%2Fx.example&tenant_id=${tenant}` +
        `&timestamp=${Date.now()}&signature=${btoa("a".repeat(32))}`,
    });
  const many = (count: number) => {
    const headers = new Headers({ authorization });
    for (let i = 0; i < count; i++) headers.set(`x-h${i}`, `v${i}`);
    return headers;
  };
  const repeated = new Headers();
  repeated.append("authorization", authorization);
  repeated.append("authorization", authorization);
  const crlf = new Headers({ authorization });
  return [
    new Headers({ authorization }),
    forged("x".repeat(7000)),
    forged(encodeURIComponent("t\r\nX-Forged: 1\u001b[2J\u0000")),
    forged(encodeURIComponent("ü€😀".repeat(150))),
    ...Array.from({ length: 20 }, (_, i) => forged(`attacker-${i}-${crypto.randomUUID()}`)),
    new Headers({ authorization, "x-big": "y".repeat(64 * 1024) }),
    many(90),
    many(500),
    repeated,
    crlf,
  ];
}

async function answers(url: string, authorization: string): Promise<string[]> {
  const seen: string[] = [];
  for (const headers of hostile(authorization)) {
    const res = await fetch(url + "hooks", { method: "POST", headers, body: BODY });
    seen.push(`${res.status} ${await res.text()}`);
  }
  // CR/LF in a header value: the client refuses to send it (nothing reaches the server).
  await assert.rejects(fetch(url + "hooks", { method: "POST", headers: { "x-a": "1\r\nX-Forged: 2" }, body: BODY }));
  return seen;
}

Deno.test("cli receive with OTEL_DENO=true: hostile headers answered as without, attributes bounded, no secret", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_otel_hostile_" });
  const kvPaths = [`${dir}/plain.kv`, `${dir}/otel.kv`];
  for (const kvPath of kvPaths) await seedAcmeFile(kvPath, SECRET, REF);
  const otlp = startOtlpReceiver();
  try {
    const authorization = await signJiveExtn(
      { clientId: "client-1", jiveUrl: "https://acme.example", tenantId: "tenant-acme" },
      SECRET,
    );
    const plain = await startReceive(kvPaths[0], {});
    const without = await answers(plain.url, authorization).finally(plain.stop);
    const traced = await startReceive(kvPaths[1], otlp.env(200));
    // Deno's HTTP server answers a request of over 90 and 500 headers, or a 64 KiB one, 400 itself (no body): never handled.
    const handled = without.filter((answer) => answer !== "400 ").length;
    assert.equal(handled, without.length - 2);
    let withOtel: string[];
    try {
      withOtel = await answers(traced.url, authorization);
      await otlp.waitFor(
        () => otlp.spans().filter((s) => s.name === "webhooks.receive").length === handled,
        "a span per request the receiver handled",
      );
      await otlp.waitFor(() => {
        const points = otlp.metrics().get("webhooks.receiver.requests")?.points ?? [];
        return points.reduce((n, p) => n + p.value!, 0) === handled;
      }, "a count per request");
    } finally {
      const { stderr } = await traced.stop();
      assert.ok(!stderr.includes("    at "), `no stack trace: ${stderr}`);
    }
    assert.deepEqual(withOtel, without, "answered as without telemetry");
    assert.equal(without[0], '200 {"received":1}');

    for (const span of otlp.spans().filter((s) => s.scope === "@community-webhooks/sdk")) {
      for (const [key, value] of Object.entries(span.attributes)) {
        assert.ok(
          String(value).length <= MAX_ATTRIBUTE_CHARS,
          `${span.name}'s ${key} is ${String(value).length} characters`,
        );
      }
    }
    const metrics = [...otlp.metrics().values()].filter((m) => m.scope === "@community-webhooks/sdk");
    for (const metric of metrics) {
      assert.ok(metric.points.length <= 10, `${metric.name} has ${metric.points.length} label sets`);
      for (const point of metric.points) {
        assert.deepEqual(Object.keys(point.attributes).filter((k) => k !== "webhooks.outcome"), []);
      }
    }
    const exported = otlp.text();
    for (const secret of [SECRET, authorization, /signature=([^&\s]+)/.exec(authorization)![1]]) {
      assert.ok(!exported.includes(secret), "no secret exported");
    }
  } finally {
    await otlp.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("boundedTenant cuts a tenant id over 512 UTF-16 units to 512, ending in '...', never halving a pair", () => {
  assert.equal(boundedTenant("t".repeat(512)), "t".repeat(512));
  assert.equal(boundedTenant("x".repeat(7000)), `${"x".repeat(509)}...`);
  const cut = boundedTenant(`${"a".repeat(508)}😀${"b".repeat(10)}`);
  assert.equal(cut, `${"a".repeat(508)}...`);
  assert.ok(cut.isWellFormed());
});
