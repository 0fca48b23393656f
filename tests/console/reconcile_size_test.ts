// A community with thousands of records: its reconcile page shows the first
// 100 of each list under its whole count, and says where the rest are, rather
// than every record in one page that grows past a megabyte (about 90 bytes a
// dangling record, more a matched one).

import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { pendingKey } from "../../webhooks/kv/mod.ts";
import { parse, withHook } from "./_helpers.ts";

Deno.test("the reconcile page of a community with 5,000 dangling records shows 100 of them under their count", async () => {
  await withHook(async (t, hook, client) => {
    for (let i = 0; i < 5000; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) =>
          t.app.webhooks.save({
            id: `d${String(i + j).padStart(4, "0")}`,
            tenantId: "sandbox-tenant",
            entity: {
              events: ["user_account"],
              callback: "https://me.example/h",
              resources: { self: { ref: hook.ref.replace(/\d+$/, String(100_000 + i + j)) } },
            },
          })),
      );
    }
    const html = await client.text("/communities/sandbox-tenant/reconcile", 200);
    assert.ok(html.length < 100_000, `the page is ${html.length} bytes`);
    const page = parse(html);
    try {
      const doc = page.document;
      assert.equal(doc.querySelector("#dangling-count")?.textContent, "5000");
      assert.equal(doc.querySelectorAll("#dangling li").length, 100);
      assert.match(doc.querySelector("#dangling-more")?.textContent ?? "", /first 100 of 5000/);
      assert.match(doc.querySelector("#dangling-more")?.textContent ?? "", /deno task cli reconcile 'Sandbox' --json/);
      assert.equal(doc.querySelectorAll("#matched li").length, 1);
      assert.equal(doc.querySelector("#matched-more") === null, true, "#matched-more shown");
    } finally {
      page.close();
    }
    // The fixes still cover every dangling record, not only those shown.
    assert.match(html, /5000/);
  });
});

Deno.test("the reconcile page's 101 abandoned registrations: its line past the first 100 names no command that lacks them", async () => {
  await withHook(async (t, _hook, client) => {
    const startedAt = Date.now() - 3_600_000;
    for (let i = 0; i < 101; i++) {
      const id = `p${String(i).padStart(4, "0")}`;
      await t.kv.set(pendingKey("sandbox-tenant", id), {
        id,
        tenantId: "sandbox-tenant",
        community: "Sandbox",
        events: ["user_account"],
        callback: `https://me.example/abandoned/${i}`,
        startedAt,
      });
    }
    const html = await client.text("/communities/sandbox-tenant/reconcile", 200);
    const page = parse(html);
    try {
      const doc = page.document;
      assert.equal(doc.querySelector("#abandoned-count")?.textContent, "101");
      assert.equal(doc.querySelectorAll("#abandoned li").length, 100);
      const more = doc.querySelector("#abandoned-more")?.textContent ?? "";
      assert.match(more, /first 100 of 101/);
      // API.md fixes the CLI's report as { matched, orphans, dangling }: it never lists abandoned registrations.
      assert.doesNotMatch(more, /cli reconcile/, `the line sends the reader to a list without them: ${more}`);
      assert.match(more, /Apply the fixes/, `the line does not say what clears them all: ${more}`);
    } finally {
      page.close();
    }
  });
});

/** The words a POSIX shell makes of `line`: bare words and '...' quotes (with '\'' inside), as the page writes them. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const raw of line.trim().split(/ +(?=(?:[^']*'[^']*')*[^']*$)/)) {
    words.push(raw.replace(/'((?:[^'])*)'|\\(.)/g, (_, quoted, escaped) => quoted ?? escaped));
  }
  return words;
}

Deno.test("the reconcile page's command for a community named '-dash' gives the CLI that name, not an option", async () => {
  await withHook(async (t, hook, client) => {
    const community = (await t.app.webhooks.communities.findByTenantID("sandbox-tenant"))!;
    await t.app.webhooks.communities.save({ ...community, name: "-dash" });
    await Promise.all(Array.from({ length: 101 }, (_, i) =>
      t.app.webhooks.save({
        id: `d${String(i).padStart(4, "0")}`,
        tenantId: "sandbox-tenant",
        entity: {
          events: ["user_account"],
          resources: { self: { ref: hook.ref.replace(/\d+$/, String(100_000 + i)) } },
        },
      })));
    const page = parse(await client.text("/communities/sandbox-tenant/reconcile", 200));
    try {
      const command = page.document.querySelector("#dangling-more code")?.textContent ?? "";
      const words = shellWords(command);
      assert.deepEqual(words.slice(0, 3), ["deno", "task", "cli"], command);
      // What the CLI's parser (node:util's parseArgs) makes of the words `deno task cli` hands it.
      const { positionals } = parseArgs({ args: words.slice(3), strict: false, allowPositionals: true });
      assert.deepEqual(positionals, ["reconcile", "-dash"], `the command gives the CLI no NAME: ${command}`);
    } finally {
      page.close();
    }
  });
});
