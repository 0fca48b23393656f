import { checkLatency } from "./_latency.ts";
import { databaseId, fileDatabaseId, newToken, openLocalKv, serveKvConnect, tokenProblem } from "./_serve.ts";

/** Options of {@linkcode startKvConnectServer}. */
export interface KvConnectServerOptions {
  /** The local KV behind the server: a file path, or `":memory:"` (the default). */
  path?: string;
  /** The port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** The access token clients must present (at least 12 printable ASCII characters); a random one by default. */
  token?: string;
  /**
   * Milliseconds by which every answer is held back, so the server stands in
   * for a KV in another region: the metadata exchange, each snapshot read and
   * atomic write (answered once the write is committed), and a watch's start
   * and each of its chunks. 0 (the default) adds nothing.
   */
  latencyMs?: number;
  /**
   * True to acknowledge as a Linux server does by default: a request that
   * arrives in part (Deno's client sends a body over 1,024 bytes in two
   * writes, with Nagle's algorithm on) then waits up to 40 ms for the second
   * part. False (the default) acknowledges such a request at once, as a
   * server with the route attribute `quickack 1` or a production front end
   * does, so the figures measure the KV's design, not that wait.
   */
  delayedAck?: boolean;
}

/** A running KV Connect server. */
export interface KvConnectServer {
  /** The URL to give `Deno.openKv`, such as `http://127.0.0.1:4512`. */
  url: string;
  /** The access token: set it as `DENO_KV_ACCESS_TOKEN` in the process that calls `Deno.openKv(url)`. */
  token: string;
  /**
   * Ends open watches, stops the server and closes its local KV. Answers in flight get 2 s to finish; then every
   * connection left (a client stuck mid-request, part of its headers or body sent and then nothing) is cut. A second
   * call, at once or after, resolves when the first has closed.
   */
  close(): Promise<void>;
}

/**
 * Starts a KV Connect server for tests: Deno's remote KV protocol (metadata
 * exchange, snapshot read, atomic write, watch) over a local Deno KV, with
 * denokv's limits (10 checks and 1,000 mutations of at most 819,200 bytes per
 * atomic write, 10 ranges and 1,000 entries per read, 10 watched keys, keys of
 * 2,048 bytes, values of 65,536 bytes) refused as denokv refuses them. It is
 * test equipment: production uses Deno Deploy's KV or the official denokv
 * server.
 *
 * @param options Where the data lives, the port, the token, the latency and the acknowledgement.
 * @returns The server's URL and token, and its `close()`.
 * @throws {TypeError} When the token is shorter than 12 characters or has a character other than printable
 * ASCII and tabs (no client could send it), `latencyMs` is not a number, or `delayedAck`
 * is not a boolean.
 * @throws {RangeError} When `latencyMs` is negative, NaN, infinite or past 2,147,483,647 (setTimeout's limit).
 *
 * @example Deno's own client against the server
 * ```ts
 * import { startKvConnectServer } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const server = await startKvConnectServer({ token: "kvconnect-example-token" });
 * Deno.env.set("DENO_KV_ACCESS_TOKEN", server.token);
 * const kv = await Deno.openKv(server.url);
 * try {
 *   await kv.set(["greeting"], "hello");
 *   assert.equal((await kv.get(["greeting"])).value, "hello");
 * } finally {
 *   kv.close();
 *   await server.close();
 * }
 * ```
 *
 * @example A KV 20 ms away
 * ```ts
 * import { startKvConnectServer } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * await assert.rejects(startKvConnectServer({ latencyMs: -1 }), RangeError);
 * const server = await startKvConnectServer({ token: "kvconnect-example-token", latencyMs: 20 });
 * Deno.env.set("DENO_KV_ACCESS_TOKEN", server.token);
 * const kv = await Deno.openKv(server.url);
 * try {
 *   await kv.get(["warm"]); // the metadata exchange, once
 *   const start = performance.now();
 *   await kv.set(["greeting"], "hello");
 *   assert.ok(performance.now() - start >= 20);
 * } finally {
 *   kv.close();
 *   await server.close();
 * }
 * ```
 */
export async function startKvConnectServer(options: KvConnectServerOptions = {}): Promise<KvConnectServer> {
  const token = options.token ?? newToken();
  const problem = tokenProblem(token, "token");
  if (problem) throw new TypeError(`Cannot start the KV Connect server: ${problem}`);
  const latencyMs = checkLatency(options.latencyMs ?? 0, "latencyMs");
  const delayedAck: unknown = options.delayedAck ?? false;
  if (typeof delayedAck !== "boolean") {
    const got = typeof delayedAck === "string"
      ? JSON.stringify(delayedAck)
      : typeof delayedAck === "object" || typeof delayedAck === "function"
      ? `a${typeof delayedAck === "object" ? "n" : ""} ${typeof delayedAck}`
      : String(delayedAck);
    throw new TypeError(`Cannot start the KV Connect server: 'delayedAck' must be true or false, got ${got}`);
  }
  const path = options.path ?? ":memory:";
  const kv = await openLocalKv(path);
  // A file keeps its id across restarts (its clients go on); a memory KV restarted is another, empty database.
  const id = path === ":memory:" ? databaseId() : await fileDatabaseId(path).catch(() => databaseId());
  const database = { id, kv };
  try {
    const server = await serveKvConnect(
      {
        token,
        open: (pathname) => Promise.resolve(pathname === "/" ? database : null),
        byId: (id) => id === database.id ? database : undefined,
        latencyMs,
      },
      options.port ?? 0,
      !delayedAck,
    );
    // One closing for every call: a second call (at once, or after) waits for it and closes nothing twice.
    let closing: Promise<void> | undefined;
    return {
      url: `http://127.0.0.1:${server.port}`,
      token,
      close: () =>
        closing ??= server.shutdown().then(() => {
          kv.close();
        }),
    };
  } catch (error) {
    kv.close();
    throw error;
  }
}
