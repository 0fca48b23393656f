// A one-time form token's use, as KV keeps it, edited by hand (or left by a bad write) into junk: null, a number,
// false, a string, a list, an object whose fields have the wrong types or whose redirect leads off the console. The
// form (Register, Send test event), sent once or twice at once, answers at once: it lands on a page of the console
// or is refused, never a 500, never a wait that does not end, never a redirect to another site.

import assert from "node:assert/strict";
import fc from "fast-check";
import { formTokenKey } from "../../console/lib/kv_keys.ts";
import { type Client, placeOf, registerFormFields, startConsole, testEventFields } from "./_helpers.ts";
import { connectSandbox, registerHook, signIn } from "./_helpers.ts";

/** Junk for a token's use (`{}`, the mark of a submission in progress, is no junk). */
const JUNK: unknown[] = [
  null,
  0,
  5,
  false,
  true,
  "",
  "x",
  [],
  [1],
  { location: 5 },
  { hookId: 7 },
  { uncertain: "no" },
  { location: "https://elsewhere.example/" },
  { location: "//elsewhere.example/" },
  ...fc.sample(fc.anything(), { numRuns: 20, seed: 65 }).filter((v) => JSON.stringify(v) !== "{}"),
];

/**
 * A KV that fails a read of a form token's use after 200 of them: a submission that reads it again and again (a
 * loop that never ends) answers a 500 instead of hanging the test.
 */
function boundedReads(kv: Deno.Kv): { kv: Deno.Kv; reset(): void } {
  let reads = 0;
  const get = (key: Deno.KvKey, options?: { consistency?: Deno.KvConsistencyLevel }) => {
    if (key[0] === "console_form_token" && ++reads > 200) throw new Error("a form token's use read 200 times");
    return kv.get(key, options);
  };
  const proxy = new Proxy(kv, {
    get(target, prop) {
      if (prop === "get") return get;
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv: proxy, reset: () => reads = 0 };
}

/** Fails unless `res` lands on a page of this console or refuses the form, as no 500. */
async function assertSensible(res: Response, what: string): Promise<void> {
  const body = await res.text();
  assert.ok(
    [303, 409].includes(res.status),
    `${what}: answered ${res.status} ${body.match(/read 200 times|class="error"[^<]*<[^<]*/)?.[0] ?? ""}`,
  );
  if (res.status === 303) {
    const location = res.headers.get("location") ?? "";
    assert.match(location, /^\/(?![/\\])/, `${what}: redirected to ${location}`);
  }
}

/** Posts `fields` to `path` twice at once as `client`; each answer must be sensible. */
async function twice(client: Client, path: string, fields: Record<string, string | string[]>, what: string) {
  const [a, b] = await Promise.all([client.post(path, fields), client.post(path, fields)]);
  await assertSensible(a, `${what} (first of two)`);
  await assertSensible(b, `${what} (second of two)`);
}

Deno.test("a form token's use edited into junk: Register and Send test event answer at once, on the console", async () => {
  const bounded = boundedReads(await Deno.openKv(":memory:"));
  const t = await startConsole({ kv: bounded.kv });
  try {
    const client = await signIn(t.origin);
    await connectSandbox(client, t.origin);
    const hookId = await registerHook(client, t.origin);
    const form = { tenantId: "sandbox-tenant", events: ["document"], object: placeOf(t.origin), callback: "" };
    for (const value of JUNK) {
      const shown = JSON.stringify(value)?.slice(0, 100);
      bounded.reset();
      const register = await registerFormFields(client);
      await t.kv.set(formTokenKey(register.formToken), value);
      await assertSensible(await client.post("/webhooks", { ...register, ...form }), `Register over ${shown}`);
      await twice(client, "/webhooks", { ...register, ...form }, `Register over ${shown}`);
      bounded.reset();
      const test = await testEventFields(client, hookId);
      assert.ok(test.formToken, "the hook's page shows Send test event");
      await t.kv.set(formTokenKey(test.formToken), value);
      await twice(client, `/webhooks/${hookId}/test`, test, `Send test event over ${shown}`);
    }
  } finally {
    await t.close();
  }
});
