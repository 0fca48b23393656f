// The console's OAuth calls (token, userinfo) go to hosts a signed-in user may
// name (a community's base URL), and oauth4webapi reads each answer whole. A
// hostile endpoint answering a few kilobytes of gzip that inflate to 64 MiB
// (fetch inflates it; its content-length is the compressed size) made one
// sign-in hold all of it. The console reads at most 1 MiB of such an answer
// and fails the step with a message that says so.

import assert from "node:assert/strict";
import { describeOAuthError, fetchUser, type OAuthProvider } from "../../console/lib/oauth.ts";

async function gzip(text: string): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

Deno.test("a userinfo answer that inflates past 1 MiB fails the step, read no further", async () => {
  const inflated = 64 * 1024 * 1024;
  const bomb = await gzip(" ".repeat(inflated) + JSON.stringify({ sub: "mallory", name: "Mallory" }));
  const small = await gzip(" ".repeat(1000) + JSON.stringify({ sub: "alice", name: "Alice" }));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const body = new URL(request.url).pathname === "/bomb" ? bomb : small;
    return new Response(body, { headers: { "content-type": "application/json", "content-encoding": "gzip" } });
  });
  const provider = (path: string): OAuthProvider => ({
    authorizationEndpoint: `http://127.0.0.1:${server.addr.port}/authorize`,
    tokenEndpoint: `http://127.0.0.1:${server.addr.port}/token`,
    userinfoEndpoint: `http://127.0.0.1:${server.addr.port}${path}`,
    clientId: "console",
  });
  try {
    assert.ok(bomb.byteLength < 200_000, "the answer is small on the wire");
    // An answer of a normal size is read as before.
    assert.deepEqual(await fetchUser(provider("/small"), "token", fetch), { sub: "alice", name: "Alice" });
    const error = await fetchUser(provider("/bomb"), "token", fetch).then(() => null, (e) => e);
    assert.ok(error, "the step fails rather than reading 64 MiB");
    assert.match(describeOAuthError(error), /larger than 1 MiB/);
  } finally {
    await server.shutdown();
  }
});
