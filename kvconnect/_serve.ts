// Starts Deno.serve with the KV Connect handler, and opens local KVs with
// Deno's own `Deno.openKv` even where a test preload has replaced it.
import { type HttpOptions, kvConnectHandler } from "./_http.ts";
import { startFront } from "./_front.ts";

const ORIGINAL = Symbol.for("community-webhooks.kvconnect.openKv");
const globals = globalThis as unknown as Record<symbol, typeof Deno.openKv | undefined>;
globals[ORIGINAL] ??= Deno.openKv;

/** Deno's own `Deno.openKv`, kept before any replacement. */
export function openLocalKv(path?: string): Promise<Deno.Kv> {
  return globals[ORIGINAL]!.call(Deno, path);
}

/** How long a closing server lets the answers in flight finish before it cuts the connections left. */
export const CLOSE_GRACE_MS = 2_000;

/** A KV Connect HTTP server on 127.0.0.1. */
export interface RunningServer {
  port: number;
  /**
   * Ends open watches and stops the HTTP server: answers in flight get {@linkcode CLOSE_GRACE_MS} to finish, then
   * every connection left (a client stuck mid-request) is cut.
   */
  shutdown(): Promise<void>;
  /** Lets the process end (or a test runner go on) while the server listens. */
  unref(): void;
}

/**
 * Serves KV Connect on 127.0.0.1 at `port` (0 picks a free one): Deno.serve
 * on a port of its own behind a front on `port` that acknowledges a request
 * that arrived in part at once, unless `promptAck` is false (_ack.ts).
 */
export async function serveKvConnect(options: HttpOptions, port = 0, promptAck = true): Promise<RunningServer> {
  const handler = kvConnectHandler(options);
  // `onListen` runs inside Deno.serve, before it returns the server: the front starts once it has (a front that
  // cannot listen, its port taken, then shuts the backend down and rethrows its own error).
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler.handle);
  let front: ReturnType<typeof startFront>;
  try {
    front = startFront(port, server.addr.port, promptAck);
  } catch (error) {
    await server.shutdown();
    throw error;
  }
  return {
    port: front.port,
    async shutdown() {
      handler.endWatches();
      front.stop();
      const drained = server.shutdown();
      // A client that sent part of a request and then nothing would hold the graceful shutdown for good. An answer
      // the backend gave is passed on before the front cuts: its relay ends when the backend closes its connection.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        drained.then(() => front.settled()),
        new Promise((resolve) => timer = setTimeout(resolve, CLOSE_GRACE_MS)),
      ]);
      clearTimeout(timer);
      front.close(); // cuts what is left, both ends: the backend's requests then end and its shutdown completes
      await drained;
    },
    unref: () => {
      server.unref();
      front.unref();
    },
  };
}

/** A fresh random database id. */
export function databaseId(): string {
  return crypto.randomUUID();
}

/**
 * The database id of the KV file at `path` (opened, so it exists): the same
 * for every start of a server on that file, as denokv answers one fixed id
 * for its file. A client that outlived a server restarted on the file (a
 * crash, a `kill -9`) then goes on with it, where a new id is refused
 * ("Invalid database id") on every call until the client itself restarts.
 * Named from the file's real path, so that two files are two databases.
 */
export async function fileDatabaseId(path: string): Promise<string> {
  const real = await Deno.realPath(path);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`file/${real}`)));
  hash[6] = (hash[6] & 0x0f) | 0x80; // the form of a UUID: version 8 (custom), RFC 4122 variant
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = Array.from(hash.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A fresh access token (denokv requires at least 12 characters). */
export function newToken(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(24)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * What keeps `token` from serving (`source` names it: 'token', '--token'), or undefined: denokv's minimum of 12
 * characters, and characters an Authorization header carries (Deno's client panics on a control character and
 * sends one past ASCII as other bytes). The token itself is never in the answer.
 */
export function tokenProblem(token: string, source: string): string | undefined {
  if (token.length < 12) return `'${source}' must have at least 12 characters`;
  if (!/^[\t\x20-\x7e]*$/.test(token)) {
    return `'${source}' must be printable ASCII (letters, digits, punctuation, spaces): a client cannot send ` +
      "a control character or one past ASCII in its Authorization header";
  }
  return undefined;
}
