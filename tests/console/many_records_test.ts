// Past the first page of the stores: the home page counts every community,
// and the deliveries page offers every community and hook in its filters and
// names the hook of each row (they stopped at the first 100); and a page of
// the communities list that holds none says so, not that there are none.

import assert from "node:assert/strict";
import { csrfOf, parse, withSignedIn } from "./_helpers.ts";

Deno.test("with 120 communities and 110 hooks, the home count, the delivery filters and the rows' hook names are whole", async () => {
  await withSignedIn({ connect: false }, async ({ t, client }) => {
    const ids = (n: number, prefix: string) =>
      Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(3, "0")}`);
    for (const tenantId of ids(120, "t")) {
      await t.app.webhooks.communities.save({ name: `Community ${tenantId}`, tenantId, baseUrl: "https://c.example" });
    }
    for (const [i, id] of ids(110, "h").entries()) {
      await t.app.webhooks.save({
        id,
        tenantId: `t${String(i).padStart(3, "0")}`,
        entity: {
          events: ["user_account"],
          callback: "https://me.example/h",
          resources: { self: { ref: `https://c.example/api/core/v3/webhooks/${i}` } },
        },
      });
    }
    // The last hook by id, named, with a delivery.
    const csrf = csrfOf(await client.text("/webhooks/h109", 200));
    await (await client.post("/webhooks/h109/label", { _csrf: csrf, name: "The last hook" })).body?.cancel();
    await t.app.deliveries.add("h109", [{ webhook: "w", activity: { verb: "jive:created", title: "Late arrival" } }]);

    const home = await client.text("/", 200);
    assert.match(home, /121 communities\s+configured/); // the sandbox's too

    const page = parse(await client.text("/deliveries", 200));
    try {
      const options = (select: string) =>
        [...page.document.querySelectorAll(`${select} option`)].map((o) => o.getAttribute("value"));
      assert.equal(options("#filter-hook").length, 1 + 110);
      assert.ok(options("#filter-hook").includes("h109"));
      assert.equal(options("#filter-community").length, 1 + 121);
      assert.ok(options("#filter-community").includes("t119"));
      const row = [...page.document.querySelectorAll("main table tbody tr")].find((tr) =>
        tr.textContent?.includes("Late arrival")
      );
      assert.ok(row, "the delivery is listed");
      assert.match(row.textContent ?? "", /The last hook/);
    } finally {
      page.close();
    }
  });
});

Deno.test("the communities list pages on, and a cursor of no page of it never claims there are no communities", async () => {
  await withSignedIn({ connect: false }, async ({ t, client }) => {
    for (let i = 0; i < 30; i++) {
      await t.app.webhooks.communities.save({ name: `C${i}`, tenantId: `t${i}`, baseUrl: "https://c.example" });
    }
    const first = await client.text("/communities", 200);
    const next = first.match(/href="(\/communities\?cursor=[^"]+)"/)?.[1];
    assert.ok(next, "a next page link");
    const second = await client.text(next.replaceAll("&amp;", "&"), 200);
    assert.match(second, /data-tenant="/);
    // Well-formed base64 that no list made (a tampered or stale link): an empty page, said as such.
    const madeUp = await client.text("/communities?cursor=Z2FyYmFnZQ%3D%3D", 200);
    assert.doesNotMatch(madeUp, /No communities yet/);
    assert.match(madeUp, /No communities on this page\. <a href="\/communities">First page<\/a>/);
    assert.match(await client.text("/communities?cursor=abc", 200), /That page cursor is not valid/);
  });
});
