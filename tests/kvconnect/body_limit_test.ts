// The KV Connect test server authenticates before it reads a body, and reads
// at most denokv's request limit (issue 43 item 8): a body without the token
// is never read, and one past 2 MiB is answered 413 once reading passes the
// limit, without reading the rest.

import assert from "node:assert/strict";
import { type KvConnectServer, startKvConnectServer } from "../../kvconnect/mod.ts";
import { TEST_TOKEN } from "./token.ts";

const MIB = 1024 * 1024;
const TOO_LARGE = "Failed to buffer the request body: length limit exceeded";

/** A request body of `total` bytes of `[` sent in 64 KiB chunks (no Content-Length), counting what was pulled. */
function flood(total: number): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  const chunk = new Uint8Array(64 * 1024).fill(0x5b);
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      pulled += chunk.length;
      controller.enqueue(chunk.slice());
    },
  });
  return { body, pulled: () => pulled };
}

async function withServer(fn: (server: KvConnectServer) => Promise<void>): Promise<void> {
  const server = await startKvConnectServer({ token: TEST_TOKEN });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

/** Posts `body` and reads the answer; a client still sending when the server ends the request reads it all the same. */
async function post(url: string, headers: Record<string, string>, body: BodyInit): Promise<[number, string]> {
  const answer = await fetch(url, { method: "POST", headers, body });
  return [answer.status, await answer.text()];
}

Deno.test("a metadata exchange without the token is refused before its body is read", async () => {
  await withServer(async (server) => {
    const sent = flood(64 * MIB);
    const answer = await post(server.url, { "content-type": "application/json" }, sent.body);
    assert.deepEqual(answer, [401, "Malformed authorization header."]);
    assert.ok(sent.pulled() < 16 * MIB, `${sent.pulled()} bytes pulled`);
    const wrong = flood(64 * MIB);
    assert.deepEqual(
      await post(server.url, { authorization: "Bearer not-the-token-at-all" }, wrong.body),
      [401, "Invalid access token."],
    );
    assert.ok(wrong.pulled() < 16 * MIB, `${wrong.pulled()} bytes pulled`);
  });
});

Deno.test("a metadata exchange with the token is read up to 2 MiB, and answered 413 past it", async () => {
  await withServer(async (server) => {
    const auth = { authorization: `Bearer ${server.token}` };
    // Declared too large: refused before anything is read.
    assert.deepEqual(await post(server.url, auth, new Uint8Array(2 * MIB + 1).fill(0x5b)), [413, TOO_LARGE]);
    // Streamed without a length: refused once reading passes the limit.
    const sent = flood(64 * MIB);
    assert.deepEqual(await post(server.url, auth, sent.body), [413, TOO_LARGE]);
    assert.ok(sent.pulled() < 16 * MIB, `${sent.pulled()} bytes pulled`);
    // Within the limit, the exchange goes on.
    const padded = `{"supportedVersions":[2,3]${" ".repeat(2 * MIB - 40)}}`;
    const [status] = await post(server.url, auth, padded);
    assert.equal(status, 200);
  });
});

Deno.test("a data path request is read up to 2 MiB, answered 413 past it, and not read at all without the token", async () => {
  await withServer(async (server) => {
    const exchange = await fetch(server.url, {
      method: "POST",
      headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
      body: JSON.stringify({ supportedVersions: [2, 3] }),
    });
    const metadata = await exchange.json();
    const headers = (token: string) => ({
      authorization: `Bearer ${token}`,
      "x-denokv-version": String(metadata.version),
      "x-denokv-database-id": metadata.databaseId,
    });
    const url = `${server.url}/v2/snapshot_read`;
    assert.deepEqual(await post(url, headers(metadata.token), new Uint8Array(2 * MIB + 1)), [413, TOO_LARGE]);
    const sent = flood(64 * MIB);
    assert.deepEqual(await post(url, headers(metadata.token), sent.body), [413, TOO_LARGE]);
    assert.ok(sent.pulled() < 16 * MIB, `${sent.pulled()} bytes pulled`);
    // At the limit: read, and refused for what it holds (zeros are no protobuf message).
    const [status, text] = await post(url, headers(metadata.token), new Uint8Array(2 * MIB));
    assert.equal(status, 400);
    assert.match(text, /^Request protobuf is invalid/);
    const forged = flood(64 * MIB);
    assert.deepEqual(await post(url, headers("wrong-token-wrong"), forged.body), [401, "Invalid access token."]);
    assert.ok(forged.pulled() < 16 * MIB, `${forged.pulled()} bytes pulled`);
  });
});
