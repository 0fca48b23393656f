// `/webhooks?tenant=` names a community by the tenant id the address holds. One that no community has is shown as
// typed, HTML-escaped; a long one was shown whole (up to the 5,000 characters a query allows), a wall of text in the
// heading and the empty list's sentence. What the page echoes of it is now cut at 80 characters, then "…".

import assert from "node:assert/strict";
import { type Client, parse, withSignedIn } from "./_helpers.ts";

/** The list's heading and the text of the page's main part, for `/webhooks?tenant=<tenant>`. */
async function shown(client: Client, tenant: string): Promise<{ heading: string; main: string; marked: boolean }> {
  const res = await client.fetch(`/webhooks?${new URLSearchParams({ tenant })}`);
  const page = parse(await res.text());
  try {
    assert.ok(res.status < 500, `answered ${res.status}`);
    const main = page.document.querySelector("main")!;
    return {
      heading: main.querySelector("h2")?.textContent ?? "",
      main: main.textContent ?? "",
      marked: main.querySelector("h2 b") !== null,
    };
  } finally {
    page.close();
  }
}

Deno.test("/webhooks?tenant= an unknown tenant id echoes at most 80 characters of it, then '…', escaped", async () => {
  await withSignedIn({}, async ({ client }) => {
    assert.equal((await shown(client, "nobody")).heading, "Webhooks of nobody");
    const eighty = "e".repeat(80);
    assert.equal((await shown(client, eighty)).heading, `Webhooks of ${eighty}`);

    const long = `<b>${"y".repeat(4_000)}END`;
    const { heading, main, marked } = await shown(client, long);
    assert.ok(heading.length <= "Webhooks of ".length + 81, `the heading echoes ${heading.length} characters`);
    assert.equal(heading, `Webhooks of ${long.slice(0, 80)}…`);
    assert.ok(!main.includes("y".repeat(78)), `the page echoes more: ${main.length} characters`);
    assert.ok(!main.includes("END"));
    assert.equal(marked, false, "the tenant id's markup is not escaped");

    // Cut between characters, never inside an emoji.
    const emoji = `${"z".repeat(79)}👍🏽${"z".repeat(50)}`;
    assert.equal((await shown(client, emoji)).heading, `Webhooks of ${"z".repeat(79)}…`);
  });
});
