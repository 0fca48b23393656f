// Module A against any answer a platform can give (fast-check): for
// register, update, unregister and reconcile, whatever the status and the
// body (JSON of any shape, with or without the anti-hijacking prefix, an
// entity of any fields, bytes that are not JSON), the call resolves or
// rejects with an Error whose message holds no token or secret, and the
// store agrees with the outcome: a failed register or update changes no
// record, a failed unregister removes none, a reconcile without `fix`
// changes nothing.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { communityOf, HIJACK, withPlatform } from "../platform.ts";

const CALLBACK = "https://receiver.example/hooks/1";
const SECRETS = ["good-token", "good-refresh", "secret-1"];

/** An entity of the fields a hook has, each of any JSON value or of its usual type. */
function entity(base: string) {
  const ref = fc.oneof(
    fc.constant(`${base}/api/core/v3/webhooks/1001`),
    fc.webUrl(),
    fc.string(),
    fc.jsonValue(),
  );
  return fc.record({
    id: fc.oneof(fc.constant("1001"), fc.string({ maxLength: 6 }), fc.jsonValue()),
    events: fc.oneof(fc.constant(["user_account"]), fc.jsonValue()),
    callback: fc.oneof(fc.constant(CALLBACK), fc.jsonValue()),
    enabled: fc.oneof(fc.boolean(), fc.jsonValue()),
    resources: fc.oneof(fc.record({ self: fc.record({ ref }, { requiredKeys: [] }) }), fc.jsonValue()),
  }, { requiredKeys: [] });
}

/** An answer: a status and a body. */
function answer(base: string) {
  const json = fc.oneof(
    entity(base),
    fc.record({ entity: entity(base) }),
    fc.jsonValue(),
    fc.record({
      list: fc.array(entity(base), { maxLength: 3 }),
      links: fc.oneof(fc.record({ next: fc.oneof(fc.webUrl(), fc.string()) }), fc.jsonValue()),
    }, { requiredKeys: [] }),
  );
  const body = fc.oneof(
    json.map((v) => JSON.stringify(v)),
    json.map((v) => HIJACK + JSON.stringify(v)),
    fc.string({ unit: "binary", maxLength: 80 }),
  );
  return fc.record({ status: fc.constantFrom(200, 201, 202, 204, 301, 400, 404, 409, 500, 503), body });
}

const ERROR_CHECK = (error: unknown) => {
  assert.ok(error instanceof Error, `rejected with ${String(error)}`);
  for (const secret of SECRETS) {
    assert.ok(!error.message.includes(secret), `the error names a secret: ${error.message}`);
  }
};

/** Settles `promise` within 10 s: a call that hangs on an answer fails the property. */
async function settled<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) =>
    timer = setTimeout(() => reject(new Error("no answer in 10 s")), 10_000)
  );
  try {
    return { ok: true, value: await Promise.race([promise, late]) };
  } catch (error) {
    if (error instanceof Error && error.message === "no answer in 10 s") throw error;
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
  }
}

/** What the store holds for the tenant, comparable. */
async function storeOf(hooks: ReturnType<typeof createWebhooks>): Promise<string> {
  const records = await hooks.findByTenantID("tenant-acme");
  return JSON.stringify(records.sort((a, b) => a.id < b.id ? -1 : 1));
}

Deno.test("register, update, unregister and reconcile under any platform answer: an Error without secrets, the store as the outcome says (property)", async () => {
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    // One hook registered for real, for update, unregister and reconcile to work on; put back after each run.
    await hooks.register("Acme", ["user_account"], null, CALLBACK);
    const [real] = await hooks.findByTenantID("tenant-acme");
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("register", "update", "unregister", "reconcile"),
        answer(platform.url),
        async (operation, { status, body }) => {
          const before = await storeOf(hooks);
          const count = (await hooks.findByTenantID("tenant-acme")).length;
          platform.override = (req) => {
            if (new URL(req.url).pathname.endsWith("/oauth2/token")) return undefined; // renewal as usual
            const noBody = status === 204 || status === 301;
            return new Response(noBody ? null : body, {
              status,
              headers: status === 301
                ? { location: "https://elsewhere.example/" }
                : { "content-type": "application/json" },
            });
          };
          let result: Awaited<ReturnType<typeof settled>>;
          try {
            result = operation === "register"
              ? await settled(hooks.register("Acme", ["user_account"], null, CALLBACK))
              : operation === "update"
              ? await settled(hooks.update(real, { enabled: false }))
              : operation === "unregister"
              ? await settled(hooks.unregister(real.id))
              : await settled(hooks.reconcile({ tenantId: "tenant-acme" }));
          } finally {
            platform.override = undefined;
          }
          if (!result.ok) ERROR_CHECK(result.error);
          const after = await hooks.findByTenantID("tenant-acme");
          if (operation === "register") {
            if (!result.ok) assert.equal(await storeOf(hooks), before, "a failed register stores no record");
            else assert.equal(after.length, count + 1, "a register that resolved stored its record");
          } else if (operation === "update") {
            if (!result.ok) assert.equal(await storeOf(hooks), before, "a failed update changes no record");
            else assert.deepEqual(await hooks.findByID(real.id), result.value, "the record is what update resolved");
          } else if (operation === "unregister") {
            if (!result.ok) {
              assert.notEqual(await hooks.findByID(real.id), null, "a failed unregister keeps the record");
            } else assert.equal(await hooks.findByID(real.id), null, "an unregister that resolved removed the record");
          } else {
            assert.equal(await storeOf(hooks), before, "a reconcile without fix changes nothing");
          }
          // Back to the real record for the next run (a record whose entity names no hook cannot be unregistered).
          for (const r of after) if (r.id !== real.id) await hooks.unregister(r.id).catch(() => {});
          await hooks.save(real);
        },
      ),
      { numRuns: 200 },
    );
  });
});
