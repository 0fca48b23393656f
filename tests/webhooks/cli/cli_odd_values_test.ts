// Odd values given to the command line: 10,000 characters where an id or a
// tenant goes, an empty positional argument. Each ends as API.md's exit
// codes say: a look-up that finds nothing as other look-ups do, a mistake in
// the command line as a usage error (2) with the command's usage.

import assert from "node:assert/strict";
import { createWebhooks } from "../../../webhooks/mod.ts";
import { main } from "../../../webhooks/cli/mod.ts";

const LONG = "x".repeat(10_000);

/** Runs `main` on a KV file holding one hook of tenant t1; resolves with status, stdout and stderr. */
async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/webhooks.kv`;
  try {
    const kv = await Deno.openKv(path);
    await createWebhooks(kv).save({ id: "h1", tenantId: "t1", entity: {} });
    kv.close();
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env: () => undefined };
    const code = await main([...args, "--kv", path], io);
    return { code, out: out.join("\n"), err: err.join("\n") };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("cli hooks list --tenant with 10,000 characters lists no webhooks, as find --id and find --url with such values find none", async () => {
  for (const json of [false, true]) {
    const listed = await run(["hooks", "list", "--tenant", LONG, ...(json ? ["--json"] : [])]);
    // Before: status 1 and Deno's own "Key too large for read (max 2049 bytes)".
    assert.equal(listed.code, 0, listed.err);
    assert.equal(listed.err, "");
    assert.deepEqual(json ? JSON.parse(listed.out) : listed.out, json ? [] : "No webhooks.");
  }
  const found = await run(["hooks", "find", "--url", `https://c.example/${LONG}`]);
  assert.equal(found.code, 0, found.err);
  assert.equal(found.out, "No webhooks.");
});

Deno.test("cli: an empty positional argument, or --events with no event in it, is a usage error (2) as an empty flag value is", async () => {
  const cases: [string[], RegExp][] = [
    [["communities", "show", ""], /^Error: 'communities show' takes NAME, got an empty one$/m],
    [["communities", "remove", ""], /^Error: 'communities remove' takes NAME, got an empty one$/m],
    [["communities", "revoke-previous-secret", ""], /^Error: 'communities revoke-previous-secret' takes NAME/m],
    [["hooks", "unregister", ""], /^Error: 'hooks unregister' takes ID, got an empty one$/m],
    [["reconcile", ""], /^Error: 'reconcile' takes NAME, got an empty one$/m],
    [
      ["hooks", "register", "--community", "A", "--events", " , ", "--callback", "https://me.example/h"],
      /^Error: --events needs one or more event names, separated by commas$/m,
    ],
  ];
  for (const [args, message] of cases) {
    const result = await run(args);
    // Before: status 1, with the library's words ("'name' must be a non-empty string", "No webhook has the id ''").
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.err}`);
    assert.match(result.err, message);
    assert.match(result.err, /^Usage: deno task cli /m, "the command's usage follows");
    assert.equal(result.out, "");
  }
});

Deno.test("cli receive: a malformed --hostname is a usage error naming the flag; an address it cannot listen on is named", async () => {
  for (const hostname of ["no such host", "a..b", "a/b"]) {
    const result = await run(["receive", "--port", "0", "--hostname", hostname]);
    // Before: status 1 and Deno's "invalid host 'no such host': invalid char found in FQDN", naming no flag.
    assert.equal(result.code, 2, `${hostname}: ${result.err}`);
    assert.match(result.err, /^Error: --hostname must be a host name or an IP address, got '/);
    assert.match(result.err, /^Usage: deno task cli receive /m);
  }
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const result = await run(["receive", "--port", String(busy.addr.port)]);
    // Before: "Error: Address already in use (os error 98)", saying neither which address nor which flag.
    assert.equal(result.code, 1, result.err);
    const named = `Error: Cannot receive on 127.0.0.1:${busy.addr.port} (--hostname, --port): Address already in use`;
    assert.ok(result.err.startsWith(named), result.err);
  } finally {
    busy.close();
  }
});

Deno.test("cli --kv (or KV_PATH) of spaces alone is a usage error, as an empty one is, and makes no file named so", async () => {
  const dir = await Deno.makeTempDir(); // the working directory of the runs
  const cli = new URL("../../../webhooks/cli.ts", import.meta.url).pathname;
  try {
    for (const [args, env] of [[["--kv", "   "], {}], [[], { KV_PATH: " \t " }]] as const) {
      const { code, stderr } = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", cli, "hooks", "list", ...args],
        cwd: dir,
        env: { NO_COLOR: "1", ...env },
        stdout: "null",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(stderr);
      // Before: status 0, a KV file named by the spaces made in the working directory.
      assert.equal(code, 2, text);
      assert.match(text, /^Error: --kv \(or KV_PATH\) needs a path or a URL, got only spaces\n/);
    }
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
