// Run by relay_spans_test.ts with OTEL_DENO=true: a relay on a KV delivers
// to a test app on 127.0.0.1 that answers 200, then 500 twice (a retry, then
// a dead letter), then 410; writes to the file TEST_OUT names what must
// never be exported (the destination's secret, the signatures sent, the
// URL's query) and the ids (not printed: Deno exports console.log as OTLP
// logs), then waits for a metric export.

import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, startApp, until, writeAll } from "../relay/fixtures.ts";

const ANSWERS: Record<number, number> = { 0: 200, 1: 500, 2: 410 };
const kv = await Deno.openKv(":memory:");
const app = startApp((r) => new Response("answer", { status: ANSWERS[JSON.parse(r.body).data.index] }));
// One retry after 1 ms: the second 500 makes the entry a dead letter.
const relay = createRelay(kv, { allowPrivateNetwork: true, schedule: [1] });
await seedHooks(kv);
const query = `token=query-secret-${crypto.randomUUID()}`;
const destination = await relay.destinations.add({ url: `${app.url}?${query}` });
const worker = relay.run();
await writeAll(kv, relay.write, [postback("h1", 0), postback("h1", 1)]);
await until(async () => (await relay.deadLetters()).values.length === 1 && app.received.length === 3, 20_000);
await writeAll(kv, relay.write, [postback("h1", 2, "q".repeat(64))]);
await until(async () => (await relay.destinations.get(destination.id))?.enabled === false, 20_000);
await until(async () => (await relay.deadLetters()).values.length === 2, 20_000);
await worker.stop();
await relay.close();
await app.close();
kv.close();
await Deno.writeTextFile(
  Deno.env.get("TEST_OUT")!,
  JSON.stringify({
    destinationId: destination.id,
    secret: destination.secret,
    query,
    signatures: app.received.map((r) => r.signature),
    entries: app.received.map((r) => r.id),
  }),
);
// Two metric exports at the test's 200 ms.
await new Promise((resolve) => setTimeout(resolve, 600));
