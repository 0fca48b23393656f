// What the command line prints of stored data and of the platform's answers
// cannot drive the terminal: control characters (an ESC sequence that
// retitles or clears it, a line break that forges a table row) come out as
// escapes, in tables, messages and errors alike, and JSON stays JSON.

import assert from "node:assert/strict";
import fc from "fast-check";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli/mod.ts";

const ESC = "\u001b";
const HOSTILE = `${ESC}]0;owned${ESC}\\${ESC}[2J`;

async function withStore(
  fn: (run: (argv: string[]) => Promise<{ code: number; out: string; err: string }>) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "cli_printable_" });
  const path = `${dir}/webhooks.kv`;
  try {
    const kv = await Deno.openKv(path);
    try {
      const hooks = createWebhooks(kv);
      await hooks.communities.save({ name: `Acme${HOSTILE}`, tenantId: "t-acme", baseUrl: "https://acme.example" });
      await hooks.save({
        id: "hook-1",
        tenantId: "t-acme",
        entity: {
          id: "1",
          events: ["document"],
          callback: `https://cb.example/x\nhook-2  t-forged  document  https://evil.example${HOSTILE}`,
          resources: { self: { ref: "https://acme.example/api/core/v3/webhooks/1" } },
        },
      });
    } finally {
      kv.close();
    }
    await fn(async (argv) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main([...argv, "--kv", path], {
        stdout: (t) => out.push(t),
        stderr: (t) => err.push(t),
        env: () => undefined,
      });
      return { code, out: out.join("\n"), err: err.join("\n") };
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("cli tables show stored control characters as escapes: no ESC reaches the terminal, no row is forged", async () => {
  await withStore(async (run) => {
    const hooks = await run(["hooks", "list"]);
    assert.equal(hooks.code, 0, hooks.err);
    assert.ok(!hooks.out.includes(ESC), "an ESC reached the terminal");
    assert.equal(hooks.out.split("\n").length, 3, "a line break in a callback made a row of its own");
    assert.match(hooks.out, /https:\/\/cb\.example\/x\\nhook-2 {2}t-forged/);
    assert.ok(hooks.out.includes("\\u001b]0;owned"));

    const communities = await run(["communities", "list"]);
    assert.equal(communities.code, 0, communities.err);
    assert.ok(!communities.out.includes(ESC));
    assert.match(communities.out, /Acme\\u001b\]0;owned/);
  });
});

Deno.test("cli messages and errors escape control characters too, and --json stays parseable", async () => {
  await withStore(async (run) => {
    const removed = await run(["communities", "remove", `Acme${HOSTILE}`]);
    assert.equal(removed.code, 0, removed.err);
    assert.ok(!removed.out.includes(ESC));
    assert.match(removed.out, /^Removed community 'Acme\\u001b/);
    const missing = await run(["communities", "show", `Gone${ESC}[2J`]);
    assert.equal(missing.code, 1);
    assert.ok(!missing.err.includes(ESC));
    assert.match(missing.err, /No community is named 'Gone\\u001b\[2J'/);

    const json = await run(["hooks", "list", "--json"]);
    assert.equal(json.code, 0, json.err);
    assert.ok(!json.out.includes(ESC));
    assert.ok(JSON.parse(json.out)[0].entity.callback.endsWith(HOSTILE));
  });
});

/** Makes a community named `name` the only one in the KV file at `path`, then runs `communities list` on it. */
async function tableOfName(path: string, name: string, tenantId: string): Promise<{ code: number; out: string }> {
  const kv = await Deno.openKv(path);
  try {
    const hooks = createWebhooks(kv);
    for (const c of (await hooks.communities.list()).values) await hooks.communities.remove(c.tenantId);
    await hooks.communities.save({ name, tenantId, baseUrl: "https://acme.example" });
  } finally {
    kv.close();
  }
  const out: string[] = [];
  const code = await main(["communities", "list", "--kv", path], {
    stdout: (t) => out.push(t),
    stderr: () => {},
    env: () => undefined,
  });
  return { code, out: out.join("\n") };
}

Deno.test("cli property: whatever a stored community's name holds, its table row is one line with no control character", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_printable_fc_" });
  const path = `${dir}/webhooks.kv`;
  try {
    // Names of any code points, the C0 and C1 controls, line separators and ESC sequences among them.
    const unit = fc.oneof(
      fc.constantFrom("\u001b", "\u001b[2J", "\n", "\r", "\t", "\u0000", "\u007f", "\u0085", "\u009b", "\u2028"),
      fc.string({ unit: "binary", minLength: 1, maxLength: 4 }),
    );
    const name = fc.array(unit, { minLength: 1, maxLength: 12 }).map((parts) => parts.join(""))
      .filter((n) => n.trim() !== "");
    await fc.assert(
      fc.asyncProperty(name, async (hostile) => {
        const { code, out } = await tableOfName(path, hostile, "t-fc");
        assert.equal(code, 0);
        const lines = out.split("\n");
        assert.equal(lines.length, 3, "a row per community under the head and its rule");
        // deno-lint-ignore no-control-regex
        assert.doesNotMatch(lines.join(""), /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
      }),
      { numRuns: 60 },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli tables show stored bidirectional controls as escapes: a name cannot reorder what the terminal shows", async () => {
  // U+202E (right-to-left override) and its kin make a terminal show text in another order than stored
  // ("Trojan source"), so a name could pass for another or hide part of a row.
  const BIDI = [
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u200e",
    "\u200f",
    "\u061c",
  ];
  const dir = await Deno.makeTempDir({ prefix: "cli_bidi_" });
  const path = `${dir}/webhooks.kv`;
  try {
    const { code, out: shown } = await tableOfName(path, `Acme${BIDI.join("")}evil`, "t-bidi");
    assert.equal(code, 0);
    for (const c of BIDI) assert.ok(!shown.includes(c), `U+${c.charCodeAt(0).toString(16)} reached the terminal`);
    assert.ok(shown.includes("\\u202e"), shown);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
