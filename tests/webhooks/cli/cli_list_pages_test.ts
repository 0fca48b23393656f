// `hooks list` and `communities list` over a few pages of the store (500 a page): the output is the same bytes as
// when every page was gathered before printing (one JSON array; one table whose columns fit every cell, all cells
// of one width here), and a KV lost at a later page exits 1 with the error on stderr and, on stdout, an array that
// is clearly unterminated: it cannot parse as a complete list (docs/cli.md, "Lists").

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { cli } from "./_cli_setup.ts";
import { withLostServer } from "./_kv_front.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";

const HOOKS = 1_100; // pages of 500, 500 and 100
const COMMUNITIES = 1_000; // pages of 500, 500 and an empty last one

/** A temp KV file with HOOKS hooks and COMMUNITIES communities, each field of one width. */
async function withSeeded(fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cli_list_pages_" });
  const path = `${dir}/store.kv`;
  const kv = await Deno.openKv(path);
  const hooks = createWebhooks(kv);
  for (let i = 0; i < HOOKS; i++) {
    const n = String(i).padStart(5, "0");
    const ref = `https://acme.example/api/core/v3/webhooks/${n}`;
    await hooks.save({
      id: `h${n}`,
      tenantId: `tenant-${i % 7}`,
      entity: { events: ["user_account"], callback: `https://cb.example/${n}`, resources: { self: { ref } } },
    });
  }
  for (let i = 0; i < COMMUNITIES; i++) {
    const n = String(i).padStart(5, "0");
    await hooks.communities.save({ name: `Community ${n}`, tenantId: `t-${n}`, baseUrl: `https://c${n}.example` });
  }
  kv.close();
  try {
    await fn(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The table of `rows` under `head`, each column as wide as its widest cell, as the CLI has always printed it. */
function expectedTable(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (row: string[]) => row.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd();
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n") + "\n";
}

Deno.test("cli hooks list and communities list over three pages print the same bytes as one gathered list", async () => {
  await withSeeded(async (path) => {
    const json = await cli(["hooks", "list", "--json", "--kv", path]);
    assert.equal(json.code, 0, json.stderr);
    const hooks = JSON.parse(json.stdout);
    assert.equal(json.stdout, JSON.stringify(hooks, null, 2) + "\n");
    assert.deepEqual(
      hooks.map((h: { id: string }) => h.id),
      Array.from({ length: HOOKS }, (_, i) => `h${String(i).padStart(5, "0")}`),
    );
    const table = await cli(["hooks", "list", "--kv", path]);
    assert.equal(table.code, 0, table.stderr);
    assert.equal(
      table.stdout,
      expectedTable(
        ["ID", "TENANT", "EVENTS", "CALLBACK", "URL"],
        hooks.map((
          h: {
            id: string;
            tenantId: string;
            entity: { events: string[]; callback: string; resources: { self: { ref: string } } };
          },
        ) => [
          h.id,
          h.tenantId,
          h.entity.events.join(","),
          h.entity.callback,
          h.entity.resources.self.ref,
        ]),
      ),
    );
    const communitiesJson = await cli(["communities", "list", "--json", "--kv", path]);
    assert.equal(communitiesJson.code, 0, communitiesJson.stderr);
    const communities = JSON.parse(communitiesJson.stdout);
    assert.equal(communities.length, COMMUNITIES);
    assert.equal(communitiesJson.stdout, JSON.stringify(communities, null, 2) + "\n");
    const communitiesTable = await cli(["communities", "list", "--kv", path]);
    assert.equal(
      communitiesTable.stdout,
      expectedTable(
        ["NAME", "TENANT", "BASE URL", "CLIENT ID", "SECRET", "TOKENS"],
        communities.map((
          c: { name: string; tenantId: string; baseUrl: string },
        ) => [c.name, c.tenantId, c.baseUrl, "", "none", "none"]),
      ),
    );
  });
});

Deno.test("cli hooks list: a KV lost at the second page exits 1; with --json, stdout an array that cannot parse", async () => {
  const revoked = () =>
    new Response("Invalid access token.", { status: 401, headers: { "content-type": "text/plain" } });
  await withSeeded(async (path) => {
    for (const json of [true, false]) {
      await withLostServer(
        "/v2/snapshot_read",
        async (front) => {
          const run = await cli(["hooks", "list", ...(json ? ["--json"] : []), "--kv", front.url], {
            env: { DENO_KV_ACCESS_TOKEN: TEST_TOKEN, KV_TIMEOUT_SECONDS: "5" },
          });
          assert.ok(front.lost, "the second page was never read");
          assert.equal(run.code, 1, run.stderr);
          assert.match(run.stderr, /^Error: The KV at '[^']+' .*Invalid access token/m);
          assert.ok(!run.stdout.includes(TEST_TOKEN) && !run.stderr.includes(TEST_TOKEN), "the access token printed");
          if (json) {
            // The first page as it came, then no closing bracket: never a shorter list that parses.
            assert.ok(run.stdout.startsWith('[\n  {\n    "id": "h00000",'), run.stdout.slice(0, 80));
            assert.doesNotMatch(run.stdout, /\]\s*$/);
            assert.throws(() => JSON.parse(run.stdout), SyntaxError);
          } else {
            assert.match(run.stdout, /^ID +TENANT +EVENTS +CALLBACK +URL\n/);
            assert.doesNotMatch(run.stdout, /h00500/);
          }
        },
        revoked,
        path,
        2,
      );
    }
  });
});
