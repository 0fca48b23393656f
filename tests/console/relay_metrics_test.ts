/**
 * The console's `/metrics` counts its relay worker's forwards (the worker
 * runs in the console's process): a destination on 127.0.0.1 answers one
 * forward 200 and another 500, and the scrape, read with a Prometheus text
 * parser, has both attempts by outcome and their durations.
 */

import assert from "node:assert/strict";
import parsePrometheus from "parse-prometheus-text-format";
import { createRelay } from "../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "../webhooks/relay/fixtures.ts";
import { startConsole } from "./_helpers.ts";

const TOKEN = "metrics-token-" + crypto.randomUUID();

interface Family {
  name: string;
  type: string;
  metrics: { value?: string; count?: string; labels?: Record<string, string> }[];
}

async function scrape(origin: string): Promise<Map<string, Family> & { text: string }> {
  const res = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 200);
  const text = await res.text();
  const families: Family[] = parsePrometheus(text);
  return Object.assign(new Map(families.map((f) => [f.name, f])), { text });
}

Deno.test("the console's /metrics counts its relay worker's attempts by outcome, and times them", async () => {
  const t = await startConsole({ metricsToken: TOKEN, relayWorker: true });
  const app = startApp((r) => new Response("answer", { status: JSON.parse(r.body).data.index === 0 ? 200 : 500 }));
  const relay = createRelay(t.kv, { allowPrivateNetwork: true });
  try {
    await seedHooks(t.kv);
    await relay.destinations.add({ url: `${app.url}?token=query-${crypto.randomUUID()}` });
    await writeAll(t.kv, relay.write, [postback("h1", 0), postback("h1", 1)]);
    await app.waitFor(2);
    const counted = async () => {
      const family = (await scrape(t.origin)).get("webhooks_relay_attempts_total");
      return (family?.metrics ?? []).map((m) => `${m.labels?.webhooks_outcome} ${m.value}`).sort().join(", ");
    };
    await until(async () => await counted() === "delivered 1, failed 1", 10_000, "the attempts counted")
      .catch(async () => assert.equal(await counted(), "delivered 1, failed 1"));
    const families = await scrape(t.origin);
    assert.equal(families.get("webhooks_relay_attempts_total")?.type, "COUNTER");
    assert.equal(families.get("webhooks_relay_duration_seconds")?.type, "HISTOGRAM");
    // The parser keeps no count of a labelled histogram: its `_count` series are read from the text.
    const counts = [...families.text.matchAll(/^webhooks_relay_duration_seconds_count\{(.*)\} (\d+)$/gm)];
    assert.deepEqual(counts.map((m) => `${m[1]} ${m[2]}`).sort(), [
      'webhooks_outcome="delivered" 1',
      'webhooks_outcome="failed" 1',
    ]);
    assert.doesNotMatch(families.text, /query-|127\.0\.0\.1/);
  } finally {
    await relay.close();
    await t.close();
    await app.close();
  }
});
