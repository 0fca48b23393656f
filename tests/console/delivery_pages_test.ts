// The deliveries page's filters say what they filter by, and a platform-side
// failure's page says what happened on the platform's side (issue 44,
// defects 8 and 9).

import assert from "node:assert/strict";
import {
  type Client,
  connectSandbox,
  parse,
  registerHook,
  signIn,
  startConsole,
  testEventFields,
  withSignedIn,
} from "./_helpers.ts";

/** Reads a page's parts with happy-dom. */
async function read<T>(client: Client, path: string, fn: (document: Document) => T): Promise<T> {
  const page = parse(await client.text(path, 200));
  try {
    return fn(page.document);
  } finally {
    page.close();
  }
}

const text = (document: Document, selector: string) => document.querySelector(selector)?.textContent?.trim() ?? "";

Deno.test("/deliveries?hook= an unknown id says no webhook has it, and links to all deliveries", async () => {
  await withSignedIn({ connect: false }, async ({ client }) => {
    const seen = await read(client, "/deliveries?hook=NONEXISTENT", (d) => ({
      error: text(d, "[role=alert]"),
      empty: text(d, "#deliveries-empty"),
      clear: d.querySelector("#clear-filters")?.getAttribute("href"),
      selected: (d.querySelector("#filter-hook") as HTMLSelectElement).value,
    }));
    assert.match(seen.error, /No webhook has the id 'NONEXISTENT'/);
    assert.match(seen.empty, /^No delivery of this webhook\./);
    assert.equal(seen.clear, "/deliveries");
    assert.equal(seen.selected, "NONEXISTENT");
  });
});

Deno.test("/deliveries?community= an unknown tenant id shows it in its dropdown, says so, and links to clear it", async () => {
  await withSignedIn({ connect: false }, async ({ t, client }) => {
    await t.app.deliveries.addRejected({
      status: 401,
      reason: "JiveEXTN signature is not valid",
      tenantId: "sandbox-tenant",
      durationMs: 1,
      receivedAt: Date.now(),
      bodyExcerpt: "[]",
      headers: {},
    }, "");
    const seen = await read(client, "/deliveries?community=nope", (d) => ({
      selected: (d.querySelector("#filter-community") as HTMLSelectElement).value,
      option: (d.querySelector("#filter-community") as HTMLSelectElement).selectedOptions[0]?.textContent ?? "",
      error: text(d, "[role=alert]"),
      rows: d.querySelectorAll("#deliveries-table tr.delivery").length,
      clear: d.querySelector("#clear-filters")?.getAttribute("href"),
    }));
    assert.equal(seen.selected, "nope", "the dropdown shows the community it filters by");
    assert.match(seen.option, /nope/);
    assert.match(seen.error, /No community has the tenant id 'nope'/);
    assert.equal(seen.rows, 0);
    assert.equal(seen.clear, "/deliveries");
  });
});

Deno.test("a platform-side failure's page says the platform could not deliver it, not what the console received", async () => {
  const listener = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const deadPort = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const t = await startConsole({ allowPrivateNetwork: true });
  try {
    const client = await signIn(t.origin);
    await connectSandbox(client, t.origin);
    const id = await registerHook(client, t.origin, { callback: `http://127.0.0.1:${deadPort}/x` });
    await (await client.post(`/webhooks/${id}/test`, await testEventFields(client, id))).body?.cancel();
    const [failure] = await t.app.deliveries.list({ hookId: id });
    assert.equal(failure.status, 0);
    const seen = await read(client, `/deliveries/${failure.id}`, (d) => ({
      title: text(d, "h1"),
      terms: [...d.querySelectorAll("#delivery-facts dt")].map((dt) => dt.textContent?.trim()),
      outcome: text(d, "#delivery-status"),
      body: text(d, "main"),
    }));
    assert.equal(seen.title, "Platform-side failure");
    for (const term of ["Received", "Our answer", "Signature"]) {
      assert.ok(!seen.terms.includes(term), `no "${term}" for a request that never reached the console`);
    }
    assert.deepEqual(seen.terms.slice(0, 2), ["Attempted", "Outcome"]);
    assert.match(seen.outcome, /^The platform could not reach the callback \(.*Connection refused/);
    assert.doesNotMatch(seen.body, /Rejected postback|valid/);
  } finally {
    await t.close();
  }
});
