// A record or community holding a value KV cannot store (a function, a symbol, a WeakMap, a promise), somewhere in
// what a library user passed, was refused in V8's words ("f () {} could not be cloned.", the function's source shown)
// naming neither the call nor the field. The refusal is a TypeError that says what was being saved and names the
// top-level field that holds the value, never showing it, and nothing is stored.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createWebhooks } from "../../../webhooks/mod.ts";

/** Every key and value in the KV, to show that a refused save changed nothing. */
async function everything(kv: Deno.Kv): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const entry of kv.list({ prefix: [] })) out.push([entry.key, entry.value]);
  return out;
}

const unstorable = fc.constantFrom<() => unknown>(
  () => () => "SOURCE-OF-A-FUNCTION",
  () => Symbol("a symbol"),
  () => new WeakMap(),
  () => Promise.resolve(1),
);

/** `value` at the end of `path` inside a fresh object (an empty path: the value itself). */
function nested(path: string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
}

const paths = fc.array(fc.constantFrom("a", "b", "list", "deep"), { maxLength: 3 });

Deno.test("save() refuses a record holding a value KV cannot store, naming the field and never the value", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const hooks = createWebhooks(kv);
    await hooks.save({ id: "h0", tenantId: "t1", entity: {} });
    const before = await everything(kv);
    await fc.assert(
      fc.asyncProperty(unstorable, paths, fc.constantFrom("entity", "meta"), async (make, path, field) => {
        const value = field === "entity" ? nested(["x", ...path], make()) : nested(path, make());
        const record = { id: "h1", tenantId: "t1", entity: {}, [field]: value };
        await assert.rejects(hooks.save(record as never), (error: Error) => {
          assert.ok(error instanceof TypeError, String(error));
          assert.match(error.message, /^Cannot save webhook "h1": /);
          assert.ok(error.message.includes(`'${field}'`), `the refusal does not name '${field}': ${error.message}`);
          assert.ok(!error.message.includes("SOURCE-OF-A-FUNCTION"), error.message);
          return true;
        });
      }),
      { numRuns: 40 },
    );
    assert.deepEqual(await everything(kv), before);
  } finally {
    kv.close();
  }
});

Deno.test("communities.save() and add() refuse a community holding a value KV cannot store, naming the field", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { communities } = createWebhooks(kv);
    const acme = { name: "Acme", tenantId: "t1", baseUrl: "https://c.example" };
    await fc.assert(
      fc.asyncProperty(unstorable, paths, fc.boolean(), async (make, path, add) => {
        const oauth = { access_token: "a", refresh_token: "b", ...nested(["extra", ...path], make()) as object };
        const call = add ? communities.add({ ...acme, oauth }) : communities.save({ ...acme, oauth });
        await assert.rejects(call, (error: Error) => {
          assert.ok(error instanceof TypeError, String(error));
          assert.match(error.message, /^Cannot save community "t1": /);
          assert.ok(error.message.includes("'oauth'"), `the refusal does not name 'oauth': ${error.message}`);
          assert.ok(!error.message.includes("SOURCE-OF-A-FUNCTION"), error.message);
          return true;
        });
      }),
      { numRuns: 40 },
    );
    assert.deepEqual(await everything(kv), []);
  } finally {
    kv.close();
  }
});
