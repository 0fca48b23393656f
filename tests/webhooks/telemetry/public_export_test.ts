/**
 * API.md's telemetry, as an outside tester reads it, from a receiver made
 * with the public `createReceiver` and served with `Deno.serve` under
 * `OTEL_DENO=true`: the exported metrics' names, instruments, units and
 * attributes (`webhooks.receiver.items` and `webhooks.commit.postbacks`
 * carry none), `webhooks.items` as an int, the outcomes of 405, 413, 400,
 * 404 and 401, and `webhooks.tenant_id` only once the header names one.
 */

import assert from "node:assert/strict";
import { startOtlpReceiver } from "../../otlp_receiver.ts";
import { runChild } from "./_helpers.ts";
import { SECRET_A, signA } from "../_receiver.ts";

Deno.test("a served public receiver exports API.md's metrics with their units and attributes, and a span per request", async () => {
  const otlp = startOtlpReceiver();
  try {
    await runChild("_public_child.ts", otlp.env(200));
    await otlp.waitFor(() => otlp.spans().filter((s) => s.name === "webhooks.receive").length === 6, "six spans");
    await otlp.waitFor(() => otlp.metrics().has("webhooks.commit.postbacks"), "the commit metric");

    const metrics = otlp.metrics();
    const shape = (name: string) => {
      const m = metrics.get(name);
      assert.ok(m, `${name} exported`);
      return [m.scope, m.kind, m.unit, m.kind === "sum" ? m.monotonic : "-"];
    };
    const SCOPE = "@community-webhooks/sdk";
    assert.deepEqual(shape("webhooks.receiver.requests"), [SCOPE, "sum", "{request}", true]);
    assert.deepEqual(shape("webhooks.receiver.duration"), [SCOPE, "histogram", "s", "-"]);
    assert.deepEqual(shape("webhooks.receiver.items"), [SCOPE, "sum", "{item}", true]);
    assert.deepEqual(shape("webhooks.commit.postbacks"), [SCOPE, "histogram", "{postback}", "-"]);

    const outcomes = (name: string) =>
      Object.fromEntries(
        metrics.get(name)!.points.map((p) => [p.attributes["webhooks.outcome"], p.value ?? p.count]),
      );
    const expected = {
      accepted: 1,
      method_not_allowed: 1,
      too_large: 1,
      bad_request: 1,
      not_found: 1,
      unauthorized: 1,
    };
    assert.deepEqual(outcomes("webhooks.receiver.requests"), expected);
    assert.deepEqual(outcomes("webhooks.receiver.duration"), expected);
    // Items stored, with no attribute; one postback per commit, with none.
    assert.deepEqual(metrics.get("webhooks.receiver.items")!.points.map((p) => [p.attributes, p.value]), [[{}, 2]]);
    const commits = metrics.get("webhooks.commit.postbacks")!.points;
    assert.deepEqual(commits.map((p) => [p.attributes, p.count, p.sum]), [[{}, 1, 1]]);

    const receives = otlp.spans().filter((s) => s.name === "webhooks.receive");
    const byOutcome = Object.fromEntries(receives.map((s) => [String(s.attributes["webhooks.outcome"]), s]));
    assert.deepEqual(Object.keys(byOutcome).sort(), Object.keys(expected).sort());
    assert.equal(byOutcome.accepted.attributes["webhooks.items"], 2);
    assert.equal(byOutcome.accepted.attributes["webhooks.tenant_id"], "tenant-a");
    // Named by a verified header or not, the tenant is known once the header is read.
    for (const outcome of ["bad_request", "not_found"]) {
      assert.equal(byOutcome[outcome].attributes["webhooks.tenant_id"], "tenant-a", outcome);
    }
    // No header was read for a 405: no tenant id.
    assert.equal(byOutcome.method_not_allowed.attributes["webhooks.tenant_id"], undefined);
    assert.equal(byOutcome.unauthorized.attributes["webhooks.tenant_id"], undefined);
    const commit = otlp.spans().find((s) => s.name === "webhooks.commit");
    assert.equal(commit?.parentSpanId, byOutcome.accepted.spanId);
    assert.equal(commit?.attributes["webhooks.commit.postbacks"], 1);

    // webhooks.items is an int attribute, not a double or a string.
    const raw = otlp.text();
    const items = /"key":\s*"webhooks\.items",\s*"value":\s*\{\s*"(\w+)":\s*"?(\d+)/g;
    const values = [...raw.matchAll(items)].map((m) => `${m[1]} ${m[2]}`).sort();
    assert.deepEqual(values, ["intValue 0", "intValue 0", "intValue 0", "intValue 0", "intValue 0", "intValue 2"]);
    const header = await signA(); // the accepted request's: same clock, same secret, same header
    for (const part of [header, /signature=([^&\s]+)/.exec(header)![1], SECRET_A]) {
      assert.ok(!raw.includes(part), "no header, signature or secret exported");
    }
  } finally {
    await otlp.close();
  }
});
