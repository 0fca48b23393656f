// Run by relay_query_test.ts with OTEL_DENO=true: a relay on a KV delivers
// one postback to two destinations of the app whose URL APP_URL names (it
// runs in the test's own process, which exports nothing): one whose URL has
// a query holding a token, one without a query. Writes the destinations' ids
// to the file TEST_OUT names (not printed: Deno exports console.log as OTLP
// logs), then waits for a span export.

import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, until, writeAll } from "../relay/fixtures.ts";

const app = Deno.env.get("APP_URL")!;
const token = Deno.env.get("QUERY_TOKEN")!;
const kv = await Deno.openKv(":memory:");
const relay = createRelay(kv, { allowPrivateNetwork: true });
await seedHooks(kv);
const withQuery = await relay.destinations.add({ url: `${app}/query?token=${token}` });
const plain = await relay.destinations.add({ url: `${app}/plain` });
const worker = relay.run();
await writeAll(kv, relay.write, [postback("h1", 0)]);
const delivered = async () => (await relay.forwards("p".repeat(64))).filter((f) => f.state === "delivered").length;
await until(async () => (await delivered()) === 2, 20_000, "both deliveries");
await worker.stop();
await relay.close();
kv.close();
await Deno.writeTextFile(Deno.env.get("TEST_OUT")!, JSON.stringify({ query: withQuery.id, plain: plain.id }));
// Two span exports at the test's 200 ms.
await new Promise((resolve) => setTimeout(resolve, 600));
