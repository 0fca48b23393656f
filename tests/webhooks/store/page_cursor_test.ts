// The cursors of list() and communities.list(): one that no page of that list
// gave (made up, mistyped, from another tenant's list, or from the other
// store) is a TypeError naming it, and nothing is read. KV itself refuses only
// a cursor it cannot decode: a made-up but decodable one ("zzzz") read as an
// empty page with cursor "", which a caller takes for "the end", and another
// list's as a place in this one.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createWebhooks, type Webhooks } from "../../../webhooks/mod.ts";
import { withKv } from "../platform.ts";

/** A KV whose `list` calls are counted, the rest of it as it is. */
function countingLists(kv: Deno.Kv): { kv: Deno.Kv; lists: () => number } {
  let lists = 0;
  const proxy = new Proxy(kv, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (name === "list") {
        return (...args: Parameters<Deno.Kv["list"]>) => {
          lists++;
          return target.list(...args);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv: proxy, lists: () => lists };
}

/** Seven hooks of t1, five of t2, and five communities. */
async function seed(hooks: Webhooks): Promise<void> {
  for (let i = 0; i < 12; i++) {
    await hooks.save({ id: `h${String(i).padStart(2, "0")}`, tenantId: i < 7 ? "t1" : "t2", entity: {} });
  }
  for (let i = 0; i < 5; i++) {
    await hooks.communities.save({ name: `C${i}`, tenantId: `t${i}`, baseUrl: "https://c.example" });
  }
}

const refused = (action: string, cursor: string) => (e: Error) => {
  assert.ok(e instanceof TypeError, String(e));
  assert.equal(e.message, `Cannot ${action}: 'cursor' must be one that a page of this list gave, got "${cursor}"`);
  return true;
};

Deno.test("list() and communities.list() refuse a made-up cursor that KV can decode, naming it, and read nothing", async () => {
  await withKv(async (plain) => {
    const { kv, lists } = countingLists(plain);
    const hooks = createWebhooks(kv);
    await seed(hooks);
    // Made up: "zzzz" read as the end of the list, "AAAA" as its start, "AmEA" (the key "a") as a place in it, and
    // KV's own cursor for a key that exists ("AmgwMAA=", the key "h00"): what a page gave before cursors had a tag.
    for (const cursor of ["zzzz", "AAAA", "AmEA", "_w==", "AmgwMAA="]) {
      const before = lists();
      await assert.rejects(hooks.list({ cursor, limit: 2 }), refused("list webhooks", cursor));
      await assert.rejects(hooks.list({ tenantId: "t1", cursor, limit: 2 }), refused("list webhooks", cursor));
      await assert.rejects(hooks.communities.list({ cursor, limit: 2 }), refused("list communities", cursor));
      assert.equal(lists(), before, `nothing is read for ${cursor}`);
    }
  });
});

Deno.test("list() and communities.list() refuse a cursor that is not Latin-1 by name, not in serde_v8's words", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    for (const cursor of ["Ā", "AmEA\u{1F600}", "é"]) {
      await assert.rejects(hooks.list({ cursor }), refused("list webhooks", cursor));
      await assert.rejects(hooks.list({ tenantId: "t2", cursor }), refused("list webhooks", cursor));
      await assert.rejects(hooks.communities.list({ cursor }), refused("list communities", cursor));
    }
  });
});

Deno.test("list() refuses the cursor of another list: another tenant's, the unfiltered one's, the communities'", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    await seed(hooks);
    const t1 = (await hooks.list({ tenantId: "t1", limit: 2 })).cursor;
    const all = (await hooks.list({ limit: 2 })).cursor;
    const communities = (await hooks.communities.list({ limit: 2 })).cursor;
    for (const cursor of [t1, all, communities]) assert.notEqual(cursor, "");
    // Taken, tenant t1's cursor (after h01) read t2's list from its start, and t2's from h01 on skipped nothing only
    // by luck of the ids; the unfiltered list's cursor read t1's list from a place in another list.
    await assert.rejects(hooks.list({ tenantId: "t2", cursor: t1 }), refused("list webhooks", t1));
    await assert.rejects(hooks.list({ cursor: t1 }), refused("list webhooks", t1));
    await assert.rejects(hooks.list({ tenantId: "t1", cursor: all }), refused("list webhooks", all));
    await assert.rejects(hooks.communities.list({ cursor: all }), refused("list communities", all));
    await assert.rejects(hooks.list({ cursor: communities }), refused("list webhooks", communities));
  });
});

Deno.test("list() and communities.list() page by the cursors they give, odd ids too, and refuse any other string (fast-check)", async () => {
  await withKv(async (kv) => {
    const hooks = createWebhooks(kv);
    // Ids with NUL (KV escapes it in a key), unicode, a quote and a dot, and a long one (a cursor of 2,000 characters).
    const odd = ["a\u0000b", "é", "\u{1F600}", 'q"u.o', "x".repeat(1500), "z"];
    for (const id of odd) await hooks.save({ id, tenantId: "t1", entity: {} });
    for (const tenantId of odd) {
      await hooks.communities.save({ name: `n-${tenantId}`, tenantId, baseUrl: "https://c.example" });
    }
    const given = new Set<string>();
    const walk = async (page: (cursor: string) => Promise<{ values: unknown[]; cursor: string }>) => {
      let count = 0;
      let cursor = "";
      do {
        const next = await page(cursor);
        count += next.values.length;
        cursor = next.cursor;
        if (cursor) given.add(cursor);
      } while (cursor !== "" && count < 20);
      return count;
    };
    assert.equal(await walk((cursor) => hooks.list({ cursor, limit: 1 })), odd.length);
    assert.equal(await walk((cursor) => hooks.list({ tenantId: "t1", cursor, limit: 2 })), odd.length);
    assert.equal(await walk((cursor) => hooks.communities.list({ cursor, limit: 1 })), odd.length);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.base64String({ minLength: 1, maxLength: 60 }),
          fc.string({ minLength: 1 }),
          fc.string({ unit: "grapheme", minLength: 1 }),
        ),
        fc.constantFrom("webhooks", "tenant", "communities"),
        async (cursor, list) => {
          fc.pre(!given.has(cursor));
          const read = list === "communities"
            ? hooks.communities.list({ cursor })
            : hooks.list({ cursor, tenantId: list === "tenant" ? "t1" : undefined });
          await assert.rejects(read, (e: Error) => {
            assert.ok(e instanceof TypeError, String(e));
            assert.match(
              e.message,
              /^Cannot list (webhooks|communities): 'cursor' must be one that a page of this list gave/,
            );
            return true;
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
