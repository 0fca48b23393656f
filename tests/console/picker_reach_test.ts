// Past the first 1,000 of the stores, the pickers the pages cap at 1,000 still
// hold what the address names: the register form opened from a community's
// webhooks (`/webhooks/new?tenant=...`) preselects that community rather than
// another one (a hook registered in the wrong community), and the webhooks list
// filtered by it names it and keeps it picked.

import assert from "node:assert/strict";
import type { TestConsole } from "./_helpers.ts";
import { parse, signIn, startConsole } from "./_helpers.ts";

const pad = (i: number) => String(i).padStart(4, "0");

/** `n` communities `t0000`... and one hook in each of the first `hooks`, saved 100 at a time. */
async function fill(t: TestConsole, n: number, hooks: number): Promise<void> {
  for (let i = 0; i < n; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, n - i) }, (_, j) =>
        t.app.webhooks.communities.save({
          name: `Community ${pad(i + j)}`,
          tenantId: `t${pad(i + j)}`,
          baseUrl: "https://c.example",
        })),
    );
  }
  for (let i = 0; i < hooks; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, hooks - i) }, (_, j) =>
        t.app.webhooks.save({
          id: `h${pad(i + j)}`,
          tenantId: `t${pad(i + j)}`,
          entity: {
            events: ["user_account"],
            callback: "https://me.example/h",
            resources: { self: { ref: `https://c.example/api/core/v3/webhooks/${i + j}` } },
          },
        })),
    );
  }
}

/** The value and text of the selected option of `select` on `html`. */
function picked(html: string, select: string): { value: string | null; text: string } {
  const page = parse(html);
  try {
    const option = page.document.querySelector(`${select} option[selected]`);
    return { value: option?.getAttribute("value") ?? null, text: option?.textContent ?? "" };
  } finally {
    page.close();
  }
}

Deno.test("with 1,100 communities, the register form and the webhooks filter keep the last one the address names", async () => {
  const t = await startConsole();
  try {
    const client = await signIn(t.origin);
    await fill(t, 1100, 0);
    const form = await client.text("/webhooks/new?tenant=t1099", 200);
    assert.equal(picked(form, "#community").value, "t1099");
    assert.match(picked(form, "#community").text, /^Community 1099\b/);
    const list = await client.text("/webhooks?tenant=t1099", 200);
    assert.match(list, /Webhooks of Community 1099/);
    assert.deepEqual(picked(list, "#filter select[name=tenant]"), { value: "t1099", text: "Community 1099" });
  } finally {
    await t.close();
  }
});

Deno.test("with 1,100 hooks, the deliveries page of the last one (its page's Deliveries link) knows it", async () => {
  const t = await startConsole();
  try {
    const client = await signIn(t.origin);
    await fill(t, 1100, 1100);
    const html = await client.text("/deliveries?hook=h1099", 200);
    assert.doesNotMatch(html, /No webhook has the id/);
    assert.doesNotMatch(html, /not registered/);
    assert.equal(picked(html, "#filter-hook").value, "h1099");
    const byCommunity = await client.text("/deliveries?community=t1099", 200);
    assert.doesNotMatch(byCommunity, /No community has the tenant id/);
    assert.equal(picked(byCommunity, "#filter-community").value, "t1099");
  } finally {
    await t.close();
  }
});
