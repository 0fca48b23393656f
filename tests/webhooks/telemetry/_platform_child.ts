// Run by platform_spans_test.ts with OTEL_DENO=true: the platform operations
// of a community whose access token the platform refuses (so the first call
// renews), against the test's platform; then waits for a metric export.

import { createWebhooks } from "../../../webhooks/mod.ts";

const community = JSON.parse(Deno.env.get("TEST_COMMUNITY")!);
const kv = await Deno.openKv(":memory:");
const hooks = createWebhooks(kv);
await hooks.communities.save(community);
await hooks.register({
  community: community.name,
  events: ["document"],
  object: "https://c.example/api/core/v3/places/42",
  callback: "https://me.example/hook",
});
const [record] = await hooks.findByTenantID(community.tenantId);
await hooks.update(record, { enabled: false });
await hooks.reconcile(community);
await hooks.unregister(record);
// The hook is gone on the platform: its update fails there.
await hooks.update(record, { enabled: true }).then(() => Deno.exit(3), () => {});
// No such record: refused before any call, so not counted.
await hooks.unregister("no-such-id").then(() => Deno.exit(4), () => {});
kv.close();
await new Promise((resolve) => setTimeout(resolve, 600));
