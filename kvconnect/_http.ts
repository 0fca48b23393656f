// The HTTP side of KV Connect (denokv `proto/kv-connect.md`): the metadata
// exchange at a database's URL, and the data path under /v2 (snapshot_read,
// atomic_write, watch), each checked for the bearer token, the protocol
// version and the database id, and answered as denokv answers. The token is
// checked before any body is read (denokv parses the metadata exchange's
// JSON first), and a body is read up to denokv's 2 MiB only (_body.ts).
import { snapshotRead } from "./_read.ts";
import {
  type AtomicWriteMsg,
  AW_CHECK_FAILURE,
  AW_SUCCESS,
  decode,
  encode,
  pb,
  type ReadRangeMsg,
  SR_SUCCESS,
} from "./_schema.ts";
import { KvConnectError } from "./_values.ts";
import { atomicWrite } from "./_write.ts";
import { watchBody } from "./_watch.ts";
import { checkRead } from "./_limits.ts";
import { delayedStream, sleep } from "./_latency.ts";
import { discard, readBody } from "./_body.ts";

/** A database the server serves: its id (a UUID) and the local KV behind it. */
export interface Database {
  id: string;
  kv: Deno.Kv;
}

/** What the HTTP layer needs: the token, and how a metadata URL's path names a database. */
export interface HttpOptions {
  token: string;
  /** The database a metadata exchange at this path opens, or null for 404. */
  open(pathname: string): Promise<Database | null>;
  /** A database by the id the client sends, or undefined. */
  byId(id: string): Database | undefined;
  /** Milliseconds by which every answer is held back (a watch: its start and each chunk); 0 by default. */
  latencyMs?: number;
}

/** A running handler: the request handler and a stop for open watches. */
export interface KvConnectHandler {
  handle(request: Request): Promise<Response>;
  /** Ends every open watch stream, so the HTTP server can shut down. */
  endWatches(): void;
}

const METADATA_TTL_MS = 24 * 60 * 60 * 1000;

function text(status: number, message: string): Response {
  return new Response(message, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}

function protobuf(body: Uint8Array): Response {
  return new Response(body as Uint8Array<ArrayBuffer>, {
    headers: { "content-type": "application/x-protobuf" },
  });
}

function sameToken(given: string, token: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(token);
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

function bearer(request: Request, token: string): void {
  const header = request.headers.get("authorization");
  const space = header?.indexOf(" ") ?? -1;
  if (!header || space < 0) throw new KvConnectError("Malformed authorization header.", 401);
  if (header.slice(0, space).toLowerCase() !== "bearer" || !sameToken(header.slice(space + 1), token)) {
    throw new KvConnectError("Invalid access token.", 401);
  }
}

async function metadata(request: Request, options: HttpOptions): Promise<Response> {
  bearer(request, options.token);
  const bytes = await readBody(request);
  let versions: unknown;
  try {
    versions = JSON.parse(new TextDecoder().decode(bytes))?.supportedVersions;
  } catch {
    throw new KvConnectError("The server requires at least protocol version 2. Use Deno 1.38.0 or newer.");
  }
  if (!Array.isArray(versions)) {
    throw new KvConnectError("The server requires at least protocol version 2. Use Deno 1.38.0 or newer.");
  }
  const version = versions.includes(3) ? 3 : versions.includes(2) ? 2 : 0;
  if (version === 0) {
    throw new KvConnectError(
      "The server could not negotiate a protocol version. The server requires protocol version 2 or 3.",
    );
  }
  const database = await options.open(new URL(request.url).pathname);
  if (!database) throw new KvConnectError("Resource not found.", 404);
  return Response.json({
    version,
    databaseId: database.id,
    endpoints: [{ url: "/v2", consistency: "strong" }],
    token: options.token,
    expiresAt: new Date(Date.now() + METADATA_TTL_MS).toISOString(),
  });
}

function dataPath(request: Request, options: HttpOptions): Database {
  const version = request.headers.get("x-denokv-version");
  if (version !== "2" && version !== "3") throw new KvConnectError("Expected protocol version 2.");
  bearer(request, options.token);
  const database = options.byId(request.headers.get("x-denokv-database-id") ?? "");
  if (!database) throw new KvConnectError("Invalid database id.");
  return database;
}

async function body<T>(request: Request, type: typeof pb[keyof typeof pb]): Promise<T> {
  const bytes = await readBody(request);
  try {
    return decode<T>(type, bytes);
  } catch (error) {
    throw new KvConnectError(`Request protobuf is invalid: ${error instanceof Error ? error.message : error}.`);
  }
}

/**
 * Builds the request handler of a KV Connect server over the given
 * databases.
 */
export function kvConnectHandler(options: HttpOptions): KvConnectHandler {
  const watches = new Set<() => void>();
  // Set once the server closes: a watch whose body was still arriving then starts ended, or the HTTP server's
  // graceful shutdown would wait for it for good.
  let closing = false;
  const latencyMs = options.latencyMs ?? 0;

  async function route(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (request.method !== "POST") throw new KvConnectError("Resource not found.", 404);
    if (pathname === "/v2/snapshot_read") {
      const { kv } = dataPath(request, options);
      const read = await body<{ ranges: ReadRangeMsg[] }>(request, pb.SnapshotRead);
      checkRead(read.ranges);
      const ranges = await snapshotRead(kv, read.ranges);
      return protobuf(encode(pb.SnapshotReadOutput, {
        ranges: ranges.map((values) => ({ values })),
        readDisabled: false,
        readIsStronglyConsistent: true,
        status: SR_SUCCESS,
      }));
    }
    if (pathname === "/v2/atomic_write") {
      const { kv } = dataPath(request, options);
      const write = await body<AtomicWriteMsg>(request, pb.AtomicWrite);
      const versionstamp = await atomicWrite(kv, write);
      return protobuf(encode(
        pb.AtomicWriteOutput,
        versionstamp ? { status: AW_SUCCESS, versionstamp } : { status: AW_CHECK_FAILURE },
      ));
    }
    if (pathname === "/v2/watch") {
      const { kv } = dataPath(request, options);
      const watch = await body<{ keys: { key: Uint8Array }[] }>(request, pb.Watch);
      const stream = watchBody(kv, watch.keys.map((k) => k.key), () => watches.delete(stream.stop));
      watches.add(stream.stop);
      if (closing) stream.stop();
      const framed = latencyMs > 0 ? delayedStream(stream.body, latencyMs) : stream.body;
      return new Response(framed, { headers: { "content-type": "application/octet-stream" } });
    }
    if (pathname.startsWith("/v2/")) throw new KvConnectError("Resource not found.", 404);
    return await metadata(request, options);
  }

  return {
    async handle(request: Request): Promise<Response> {
      let response: Response;
      try {
        response = await route(request);
      } catch (error) {
        discard(request); // refused before its body was read (or part of it): the rest is never read
        // Test equipment: an unexpected failure is answered 400 (which a client reports at once) rather than
        // 500 (which Deno's client retries without end), so a bug here fails a test instead of hanging it.
        response = error instanceof KvConnectError
          ? text(error.status, error.message)
          : text(400, `An internal server error occurred: ${error instanceof Error ? error.message : error}`);
      }
      // The latency knob: the work is done (a write committed), its answer travels back late.
      await sleep(latencyMs);
      return response;
    },
    endWatches(): void {
      closing = true;
      for (const stop of [...watches]) stop();
    },
  };
}
