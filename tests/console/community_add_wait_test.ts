// Add community while another add of the same tenant id is in progress (a double click, a second tab, another
// console process): the add waits for it, and its answer is what is true once that add ended.

import assert from "node:assert/strict";
import { addingCommunityKey } from "../../console/lib/kv_keys.ts";
import { type Client, parse, signIn, startConsole, type TestConsole } from "./_helpers.ts";

async function withConsole(fn: (t: TestConsole, client: Client, form: Record<string, string>) => Promise<void>) {
  const t = await startConsole();
  try {
    const client = await signIn(t.origin);
    const page = parse(await client.text("/communities/new", 200));
    const _csrf = page.document.querySelector("form[action='/communities'] input[name=_csrf]")?.getAttribute("value");
    page.close();
    await fn(t, client, {
      _csrf: _csrf ?? "",
      name: "Acme",
      tenantId: "t-acme",
      baseUrl: "https://acme.example",
      clientId: "cid",
      clientSecret: btoa("the client secret"),
    });
  } finally {
    await t.close();
  }
}

/**
 * Resolves once the console reads `key` through `kv` (an add waiting for another add's hold to go reads it); rejects
 * after 10 s, when the add did not wait at all.
 */
async function readOf(kv: Deno.Kv, key: Deno.KvKey): Promise<void> {
  const { promise, resolve } = Promise.withResolvers<void>();
  const get = kv.get;
  kv.get = function (this: Deno.Kv, k: Deno.KvKey, ...rest: unknown[]) {
    if (JSON.stringify(k) === JSON.stringify(key)) resolve();
    return (get as (...args: unknown[]) => unknown).call(this, k, ...rest);
  } as Deno.Kv["get"];
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      promise,
      new Promise((_, reject) =>
        timer = setTimeout(() => reject(new Error("the add never waited for the hold")), 10_000)
      ),
    ]);
  } finally {
    clearTimeout(timer);
    kv.get = get;
  }
}

/** The status, redirect and page error of an answer. */
async function outcome(res: Response): Promise<{ status: number; location: string; error: string }> {
  const page = parse(await res.text());
  try {
    const error = page.document.querySelector(".error")?.textContent?.trim() ?? "";
    return { status: res.status, location: res.headers.get("location") ?? "", error };
  } finally {
    page.close();
  }
}

Deno.test("an add that waited for another add of its tenant id, which failed and stored nothing, adds the community", async () => {
  await withConsole(async (t, client, form) => {
    // Another add holds the tenant id, then fails (its save threw, say) and lets go, having stored nothing.
    await t.kv.set(addingCommunityKey("t-acme"), true, { expireIn: 60_000 });
    const waiting = readOf(t.kv, addingCommunityKey("t-acme"));
    const answer = client.post("/communities", form);
    await waiting;
    await t.kv.delete(addingCommunityKey("t-acme"));
    assert.deepEqual(await outcome(await answer), {
      status: 303,
      location: "/communities/t-acme?notice=saved",
      error: "",
    });
    assert.equal((await t.app.webhooks.communities.findByTenantID("t-acme"))?.clientSecret, form.clientSecret);
  });
});

Deno.test("an add that waited for another add of its tenant id, which stored other values, says it already exists", async () => {
  await withConsole(async (t, client, form) => {
    await t.kv.set(addingCommunityKey("t-acme"), true, { expireIn: 60_000 });
    const waiting = readOf(t.kv, addingCommunityKey("t-acme"));
    const answer = client.post("/communities", form);
    await waiting;
    const other = { name: "Other", tenantId: "t-acme", baseUrl: "https://other.example" };
    await t.app.webhooks.communities.save(other);
    await t.kv.delete(addingCommunityKey("t-acme"));
    const { status, error } = await outcome(await answer);
    assert.deepEqual({ status, error }, { status: 400, error: "A community with tenant id 't-acme' already exists" });
    assert.deepEqual(await t.app.webhooks.communities.findByTenantID("t-acme"), other, "the first add's stays");
  });
});
