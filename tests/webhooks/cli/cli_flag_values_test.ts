// A flag's value that the library refuses (a --base-url that is no http(s) URL, a --callback with a space, a --name
// KV cannot key by) is the user's mistake in typing the command: a usage error, exit status 2 with the command's
// usage, said in the flag's name (API.md, command line), as `listen --forward-to` does; not exit 1 in the library's
// words ('baseUrl', 'tenantId'). A failed operation (KV, the platform, a name no community has) stays status 1.

import assert from "node:assert/strict";
import { main } from "../../../webhooks/cli/mod.ts";
import { createWebhooks } from "../../../webhooks/mod.ts";

const TOKENS: Record<string, string> = { ACCESS_TOKEN: "good-token", REFRESH_TOKEN: "good-refresh" };

/** Runs the CLI in this process on the KV file at `path`; resolves with its status and what it wrote. */
async function run(path: string, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main([...argv, "--kv", path], {
    stdout: (t) => stdout.push(t),
    stderr: (t) => stderr.push(t),
    env: (name) => TOKENS[name],
  });
  return { code, stdout: stdout.join("\n"), stderr: stderr.join("\n") };
}

async function withKv(fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cli_flag_values_" });
  try {
    await fn(`${dir}/webhooks.kv`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const add = (flags: Record<string, string>) => [
  "communities",
  "add",
  ...Object.entries({ name: "Acme", tenant: "t1", "base-url": "https://acme.example", ...flags })
    .flatMap(([k, v]) => [`--${k}`, v]),
];

Deno.test("communities add: a --base-url, --name or --tenant the store refuses is a usage error naming the flag", async () => {
  await withKv(async (path) => {
    const cases: [string[], RegExp][] = [
      [add({ "base-url": "notaurl" }), /^Error: --base-url must be an absolute http\(s\) URL, got "notaurl"$/m],
      [add({ "base-url": "ftp://acme.example" }), /^Error: --base-url must be an absolute http\(s\) URL/m],
      [add({ "base-url": "https://me:hunter2@acme.example" }), /^Error: --base-url must not carry a user name/m],
      [add({ name: "Acme\uD800" }), /^Error: --name must be a well-formed string/m],
      [add({ tenant: "t\uDC00" }), /^Error: --tenant must be a well-formed string/m],
      [add({ tenant: "t".repeat(3000) }), /^Error: --tenant is too long/m],
    ];
    for (const [argv, message] of cases) {
      const { code, stdout, stderr } = await run(path, argv);
      assert.equal(code, 2, `${argv.join(" ").slice(0, 80)}: ${stderr}`);
      assert.match(stderr, message);
      assert.match(stderr, /communities add --name NAME --tenant ID --base-url URL/, "the command's usage follows");
      assert.doesNotMatch(stderr, /hunter2|'baseUrl'|'tenantId'/);
      assert.equal(stdout, "");
    }
    const kv = await Deno.openKv(path);
    assert.equal((await createWebhooks(kv).communities.list()).values.length, 0, "nothing saved");
    kv.close();
  });
});

Deno.test("hooks register: a --callback or --events the library refuses is a usage error naming the flag", async () => {
  await withKv(async (path) => {
    assert.equal((await run(path, add({ "base-url": "http://127.0.0.1:9" }))).code, 0);
    const register = ["hooks", "register", "--community", "Acme"];
    const cases: [string[], RegExp][] = [
      [
        [...register, "--events", "user_account", "--callback", "https://app example/cb"],
        /^Error: --callback must be/m,
      ],
      [
        [...register, "--events", "user_account,discussion", "--callback", "https://app.example/cb"],
        /^Error: --events/m,
      ],
      [[...register, "--events", "discussion", "--callback", "https://app.example/cb"], /^Error: --object must be/m],
    ];
    for (const [argv, message] of cases) {
      const { code, stderr } = await run(path, argv);
      assert.equal(code, 2, `${argv.join(" ")}: ${stderr}`);
      assert.match(stderr, message);
      assert.match(stderr, /hooks register --community NAME/, "the command's usage follows");
    }
    // Failed operations stay status 1: a name no community has, a platform that does not answer.
    const unknown = await run(path, [
      "hooks",
      "register",
      "--community",
      "Nobody",
      "--events",
      "user_account",
      "--callback",
      "https://app.example/cb",
    ]);
    assert.equal(unknown.code, 1, unknown.stderr);
    const down = await run(path, [...register, "--events", "user_account", "--callback", "https://app.example/cb"]);
    assert.equal(down.code, 1, down.stderr);
  });
});
