// Run by relay_fragment_test.ts with OTEL_DENO=true: a destination of the
// app whose URL APP_URL names is added, then its record hand-edited so that
// its URL ends in a fragment holding FRAGMENT_TOKEN (add and update strip a
// fragment; a record edited by hand keeps one, and it is no damage). A relay
// opened afterwards delivers one postback to it; then waits for a span export.

import { createRelay } from "../../../webhooks/mod.ts";
import { postback, seedHooks, until, writeAll } from "../relay/fixtures.ts";

const app = Deno.env.get("APP_URL")!;
const kv = await Deno.openKv(":memory:");
const adding = createRelay(kv, { allowPrivateNetwork: true });
await seedHooks(kv);
const { id } = await adding.destinations.add({ url: `${app}/fragment` });
await adding.close();
const key = ["relay_destination", id];
const record = (await kv.get<Record<string, unknown>>(key)).value!;
await kv.set(key, { ...record, url: `${app}/fragment#${Deno.env.get("FRAGMENT_TOKEN")}` });
const relay = createRelay(kv, { allowPrivateNetwork: true });
const worker = relay.run();
await writeAll(kv, relay.write, [postback("h1", 0)]);
const delivered = async () => (await relay.forwards("p".repeat(64))).filter((f) => f.state === "delivered").length;
await until(async () => (await delivered()) === 1, 20_000, "the delivery");
await worker.stop();
await relay.close();
kv.close();
// Two span exports at the test's 200 ms.
await new Promise((resolve) => setTimeout(resolve, 600));
