// `register` end to end against the sandbox served by the tests (a real HTTP server
// on 127.0.0.1): the module's own time per call beyond the platform's.
//
//   deno bench -A bench/register_bench.ts
//
// Per backend (`BENCH_KV`, default `memory,file`), one group with:
// - `platform only`: the bare HTTP round trip any client pays (POST, read the
//   answer, strip the anti-hijacking line, parse the JSON);
// - `raw floor`: that round trip plus exactly the KV operations `register`
//   does (community lookup by name, pending entry, guarded atomic save);
// - `register`: the module's call.

import assert from "node:assert/strict";
import { createWebhooks } from "../webhooks/mod.ts";
import {
  communityByNameKey,
  communityKey,
  pendingKey,
  webhookByTenantKey,
  webhookByUrlKey,
  webhookKey,
} from "./_layout.ts";
import type { Community, Webhook } from "../webhooks/mod.ts";
import { communityOf, startPlatform } from "../tests/webhooks/platform.ts";
import { type Backend, type BenchKv, openBenchKv } from "./_fixtures.ts";
import { monotonicFactory } from "ulid";

const backends = (Deno.env.get("BENCH_KV") ?? "memory,file").split(",").map((b) => b.trim()) as Backend[];

const rounds = Number(Deno.env.get("BENCH_ROUNDS") ?? 9);
const platform = await startPlatform();
const opened: BenchKv[] = [];
globalThis.addEventListener("unload", () => {
  for (const db of opened) db.dispose();
  // The server stops with the process; close() also ends its connections.
  void platform.close();
});

const EVENTS = ["document", "discussion"];
const OBJECT = `${platform.url}/api/core/v3/places/1001`;
const CALLBACK = "https://service.example.net/postback/acme";
const HIJACK_PREFIX = /^\s*throw\s+'allowIllegalResourceCall is false\.';?\s*/;

/** The bare round trip: what the platform costs any client. */
async function platformOnly(accessToken: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${platform.url}/api/core/v3/webhooks`, {
    method: "POST",
    headers: {
      Accept: "application/json",
      Authorization: `Bearer ${accessToken}`,
      "Content-Type": "application/json",
    },
    body: JSON.stringify({ events: EVENTS, object: OBJECT, callback: CALLBACK }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`Platform answered ${response.status}`);
  return JSON.parse(text.replace(HIJACK_PREFIX, ""));
}

/** The floor: the round trip plus the KV operations `register` does. */
async function rawFloor(kv: Deno.Kv, name: string, newId: () => string): Promise<Webhook> {
  const tenant = (await kv.get<string>(communityByNameKey(name))).value!;
  const stored = (await kv.get<Community>(communityKey(tenant))).value!;
  const pendingAt = pendingKey(tenant, newId());
  await kv.set(pendingAt, { tenantId: tenant, events: EVENTS, object: OBJECT, callback: CALLBACK });
  const entity = await platformOnly(stored.oauth!.access_token);
  const record = { id: newId(), tenantId: tenant, entity } as Webhook;
  const current = await kv.get(webhookKey(record.id));
  const result = await kv.atomic()
    .check(current)
    .set(webhookKey(record.id), record)
    .set(webhookByTenantKey(tenant, record.id), record)
    .set(webhookByUrlKey(record.entity.resources!.self!.ref!, record.id), record)
    .delete(pendingAt)
    .commit();
  if (!result.ok) throw new Error("Raw save failed");
  return record;
}

for (const backend of backends) {
  const db = await openBenchKv(backend);
  opened.push(db);
  const { kv } = db;
  const hooks = createWebhooks(kv);
  const community = communityOf(platform) as Community;
  await hooks.communities.save(community);
  const newId = monotonicFactory();

  // Each variant must reach the platform and store what register stores.
  const answer = await hooks.register(community.name, EVENTS, OBJECT, CALLBACK);
  assert.equal(answer.status, 200);
  assert.equal((await hooks.findByWebhookURL(answer.entity.resources!.self!.ref!)).length, 1);
  const floor = await rawFloor(kv, community.name, newId);
  assert.deepEqual(await hooks.findByID(floor.id), floor);
  assert.deepEqual(await hooks.pending(community.tenantId), []);

  // Short rounds spread over the run, the rows rotated by the round so that
  // each takes each position in turn; scripts/bench.ts keeps the median of
  // the ratios within each round.
  const rows: [string, () => Promise<void>][] = [
    ["platform only", async () => void await platformOnly("good-token")],
    ["raw floor", async () => void await rawFloor(kv, community.name, newId)],
    ["register", async () => void await hooks.register(community.name, EVENTS, OBJECT, CALLBACK)],
  ];
  for (let round = 1; round <= rounds; round++) {
    const group = `register · ${backend}${rounds > 1 ? ` · round ${round}` : ""}`;
    const shift = (round - 1) % rows.length;
    for (const [name, fn] of [...rows.slice(shift), ...rows.slice(0, shift)]) {
      Deno.bench({ name, group, baseline: name === "platform only", n: 100, fn });
    }
  }
}
