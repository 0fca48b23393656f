// A community whose platform cannot be reached (nothing listens at its base
// URL): `reconcile` and `hooks register` fail with status 1 and one line on
// stderr that says where the request went and why it failed, not Deno's bare
// "fetch failed", which tells a newcomer neither; secrets stay out of it.

import assert from "node:assert/strict";
import { ACME_PLATFORM_CALLS, cli } from "./_cli_setup.ts";

const SECRET = "client-secret-never-shown";
const ACCESS = "access-token-never-shown";
const REFRESH = "refresh-token-never-shown";

/** A port on 127.0.0.1 that nothing listens on (taken, then let go). */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

Deno.test("cli: an unreachable platform is named, with the reason, not a bare 'fetch failed'", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cli_unreachable_" });
  try {
    const kv = `${dir}/webhooks.kv`;
    const port = closedPort();
    const added = await cli(
      ["communities", "add", "--kv", kv, "--name", "Acme", "--tenant", "t-acme"].concat(
        ["--base-url", `http://127.0.0.1:${port}/platform`, "--client-id", "client-1"],
      ),
      { env: { CLIENT_SECRET: SECRET, ACCESS_TOKEN: ACCESS, REFRESH_TOKEN: REFRESH } },
    );
    assert.equal(added.code, 0, added.stderr);
    for (const args of ACME_PLATFORM_CALLS) {
      const run = await cli([...args, "--kv", kv]);
      assert.equal(run.code, 1, run.stderr);
      const lines = run.stderr.trim().split("\n").filter((l) => !l.startsWith("reading the platform"));
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0], /^Error: /);
      assert.ok(lines[0].includes(`127.0.0.1:${port}`), `${args[0]}: the platform's address is not named: ${lines[0]}`);
      assert.match(lines[0], /refused/i, `${args[0]}: the reason is not said: ${lines[0]}`);
      for (const secret of [SECRET, ACCESS, REFRESH]) assert.ok(!run.stderr.includes(secret));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
