// The KV Connect access token (DENO_KV_ACCESS_TOKEN) is a secret as the
// platform's are: a KV server (or a proxy before it) whose error echoes the
// request's Authorization header must not get it printed.

import assert from "node:assert/strict";
import { cli } from "./_cli_setup.ts";

const TOKEN = "kv-access-token-SECRETX";

Deno.test("cli --kv naming a KV Connect server whose error echoes the access token does not print the token", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => new Response(`token ${request.headers.get("authorization")} is not valid`, { status: 401 }),
  );
  try {
    const url = `http://127.0.0.1:${server.addr.port}`;
    for (const args of [["hooks", "list"], ["communities", "list", "--json"]]) {
      const run = await cli([...args, "--kv", url], { env: { DENO_KV_ACCESS_TOKEN: TOKEN } });
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /^Error: Cannot open the KV at 'http:\/\/127\.0\.0\.1:\d+': .*401/);
      assert.ok(!run.stderr.includes(TOKEN), `the access token printed: ${run.stderr}`);
    }
  } finally {
    await server.shutdown();
  }
});
