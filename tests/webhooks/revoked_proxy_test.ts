// A library user's hostile values (a revoked Proxy, a function whose toString throws) where Module A and the relay
// take an id, a name or a number: each call is refused with a TypeError or RangeError that names the argument, as a
// rejected promise for a call that returns one (never a throw past the async boundary), and the KV is left as it was.

import assert from "node:assert/strict";
import { createRelay, createWebhooks, type Relay, type Webhooks } from "../../webhooks/mod.ts";

/** Every key and value in the KV, to show that a refused call changed nothing. */
async function everything(kv: Deno.Kv): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const entry of kv.list({ prefix: [] })) out.push([entry.key, entry.value]);
  return out;
}

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function throwingFunction(): () => void {
  const fn = () => {};
  fn.toString = () => {
    throw new Error("toString was called");
  };
  return fn;
}

type Call = [string, (hooks: Webhooks, relay: Relay, bad: unknown) => unknown];

/** Each call with the hostile value in one place, and the argument its refusal must name. */
const CALLS: Call[] = [
  ["webhookId", (h, _r, bad) => h.findByID(bad as never)],
  ["tenantId", (h, _r, bad) => h.findByTenantID(bad as never)],
  ["webhookURL", (h, _r, bad) => h.findByWebhookURL(bad as never)],
  ["webhookId", (h, _r, bad) => h.remove(bad as never)],
  ["tenantId", (h, _r, bad) => h.pending(bad as never)],
  ["id", (h, _r, bad) => h.save({ id: bad, tenantId: "t1", entity: {} } as never)],
  ["name", (h, _r, bad) => h.communities.findByName(bad as never)],
  ["tenantId", (h, _r, bad) => h.communities.findByTenantID(bad as never)],
  ["tenantId", (h, _r, bad) => h.communities.remove(bad as never)],
  ["id", (_h, r, bad) => r.destinations.get(bad as never)],
  ["id", (_h, r, bad) => r.destinations.remove(bad as never)],
  ["id", (_h, r, bad) => r.destinations.update(bad as never, { enabled: false })],
  ["entryId", (_h, r, bad) => r.attempts(bad as never)],
  ["entryId", (_h, r, bad) => r.deadLetter(bad as never)],
  ["entryId", (_h, r, bad) => r.entryState(bad as never)],
  ["entryId", (_h, r, bad) => r.redeliver(bad as never)],
  ["postbackId", (_h, r, bad) => r.forwards(bad as never)],
  ["index", (_h, r, bad) => r.forwards("p", bad as never)],
  ["limit", (_h, r, bad) => r.deadLetters({ limit: bad as never })],
];

for (
  const [label, make] of [["a revoked Proxy", revokedProxy], ["a function whose toString throws", throwingFunction]]
) {
  Deno.test(`Module A and the relay refuse ${label} as an id, a name or a number by name, as a rejection`, async () => {
    const kv = await Deno.openKv(":memory:");
    const relay = createRelay(kv);
    try {
      const hooks = createWebhooks(kv);
      await hooks.communities.save({ name: "c1", tenantId: "t1", baseUrl: "https://c.example" });
      await hooks.save({ id: "h1", tenantId: "t1", entity: {} });
      const before = await everything(kv);
      for (const [name, call] of CALLS) {
        let answer: unknown;
        try {
          answer = call(hooks, relay, (make as () => unknown)());
        } catch (error) {
          assert.fail(`a call refusing '${name}' threw at once instead of rejecting: ${error}`);
        }
        assert.ok(answer instanceof Promise, `a call refusing '${name}' did not answer a promise`);
        await assert.rejects(
          answer,
          (error: Error) =>
            (error instanceof TypeError || error instanceof RangeError) && error.message.includes(`'${name}'`),
          `the refusal does not name '${name}'`,
        );
      }
      assert.deepEqual(await everything(kv), before);
    } finally {
      await relay.close();
      kv.close();
    }
  });
}
