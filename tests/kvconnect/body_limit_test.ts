// The KV Connect test server authenticates before it reads a body, and reads
// at most denokv's request limit (issue 43 item 8): a body without the token
// is never read, and one past 2 MiB is answered 413 once reading passes the
// limit, without reading the rest.

import assert from "node:assert/strict";
import { type KvConnectServer, startKvConnectServer } from "../../kvconnect/mod.ts";
import { TEST_TOKEN } from "./token.ts";

const MIB = 1024 * 1024;
const TOO_LARGE = "Failed to buffer the request body: length limit exceeded";

/** How far the client may send before it waits for the answer: far past the 2 MiB limit and the socket buffers. */
const HOLD_AT = 16 * MIB;
/** A server that reads the whole body never answers a held client; the hold gives way after this, so such a test fails rather than hangs. */
const GIVE_WAY_MS = 10_000;

/** A flood of `[` in 64 KiB chunks (no Content-Length) that holds at {@link HOLD_AT} until `answered()`. */
interface Flood {
  body: ReadableStream<Uint8Array>;
  /** Bytes pulled from the body so far. */
  pulled: () => number;
  /** Releases the hold: the answer has arrived. */
  answered: () => void;
}

/**
 * A request body of `total` bytes that counts what was pulled. Once it has
 * given {@link HOLD_AT} bytes it waits for the answer, so the count when the
 * answer arrives says how much the server needed before it answered, however
 * fast the client goes on sending afterwards (a server that reads everything
 * first answers only when the hold gives way, with `total` pulled).
 */
function flood(total: number): Flood {
  const chunk = new Uint8Array(64 * 1024).fill(0x5b);
  let pulled = 0;
  let release = () => {};
  const answer = new Promise<void>((resolve) => release = resolve);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const answered = () => {
    clearTimeout(timer);
    release();
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pulled >= total) return controller.close();
      if (pulled >= HOLD_AT) {
        timer ??= setTimeout(answered, GIVE_WAY_MS);
        await answer;
      }
      pulled += chunk.length;
      controller.enqueue(chunk.slice());
    },
    cancel: answered,
  });
  return { body, pulled: () => pulled, answered };
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

/** Posts a flood of 64 MiB; the answer, and the bytes pulled when it arrived. */
async function postFlood(url: string, headers: Record<string, string>): Promise<[number, string, number]> {
  const sent = flood(64 * MIB);
  try {
    const answer = await fetch(url, { method: "POST", headers, body: sent.body });
    const pulled = sent.pulled();
    sent.answered();
    return [answer.status, await answer.text(), pulled];
  } finally {
    sent.answered();
  }
}

/** Asserts a flood was answered `expected` before the server had read past the hold. */
function assertAnsweredEarly([status, text, pulled]: [number, string, number], expected: [number, string]): void {
  assert.deepEqual([status, text], expected);
  assert.ok(pulled <= HOLD_AT, `${pulled} bytes pulled before the answer`);
}

Deno.test("a metadata exchange without the token is refused before its body is read", async () => {
  await withServer(async (server) => {
    assertAnsweredEarly(await postFlood(server.url, { "content-type": "application/json" }), [
      401,
      "Malformed authorization header.",
    ]);
    assertAnsweredEarly(await postFlood(server.url, { authorization: "Bearer not-the-token-at-all" }), [
      401,
      "Invalid access token.",
    ]);
  });
});

Deno.test("a metadata exchange with the token is read up to 2 MiB, and answered 413 past it", async () => {
  await withServer(async (server) => {
    const auth = { authorization: `Bearer ${server.token}` };
    // Declared too large: refused before anything is read.
    assert.deepEqual(await post(server.url, auth, new Uint8Array(2 * MIB + 1).fill(0x5b)), [413, TOO_LARGE]);
    // Streamed without a length: refused once reading passes the limit.
    assertAnsweredEarly(await postFlood(server.url, auth), [413, TOO_LARGE]);
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
    assertAnsweredEarly(await postFlood(url, headers(metadata.token)), [413, TOO_LARGE]);
    // At the limit: read, and refused for what it holds (zeros are no protobuf message).
    const [status, text] = await post(url, headers(metadata.token), new Uint8Array(2 * MIB));
    assert.equal(status, 400);
    assert.match(text, /^Request protobuf is invalid/);
    assertAnsweredEarly(await postFlood(url, headers("wrong-token-wrong")), [401, "Invalid access token."]);
  });
});
