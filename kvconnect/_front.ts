// The listening front of the test server: accepts each connection on the
// server's port and relays it byte for byte to Deno.serve on a port of its
// own, acknowledging an HTTP/2 request that arrived in part at once (_ack.ts).
import { FrameCursor, isHttp2, PREFACE_LENGTH, priorityFrame } from "./_ack.ts";

/** A listening front. */
export interface Front {
  port: number;
  /** Stops accepting new connections. */
  stop(): void;
  /** Ends every relayed connection. */
  close(): void;
  /** Resolves when no connection is relayed any more (each ended, or close() ran). */
  settled(): Promise<void>;
  /** Lets the process end while the front listens or relays. */
  unref(): void;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
}

/** Listens on 127.0.0.1 at `port` (0 picks one) and relays to 127.0.0.1 at `backend`; `promptAck` false relays only. */
export function startFront(port: number, backend: number, promptAck: boolean): Front {
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  const open = new Set<Deno.Conn>();
  let unrefd = false;
  let waiting: (() => void)[] = [];
  const settle = () => {
    if (open.size > 0) return;
    for (const resolve of waiting) resolve();
    waiting = [];
  };
  const track = (conn: Deno.Conn) => {
    open.add(conn);
    if (unrefd) conn.unref();
  };
  let stopped = false;
  let pause: { timer: ReturnType<typeof setTimeout>; resolve: () => void } | undefined; // after a failed accept
  (async () => {
    while (!stopped) {
      let client: Deno.TcpConn;
      try {
        client = await listener.accept();
      } catch {
        // Closed by stop(), or a passing failure (out of file handles): accept again after a pause unless stopped.
        if (!stopped) {
          await new Promise<void>((resolve) => pause = { timer: setTimeout(resolve, 50), resolve });
        }
        continue;
      }
      track(client);
      relay(client, backend, promptAck, track, open, settle).catch(() => {}).finally(settle);
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    stop() {
      stopped = true;
      if (pause) clearTimeout(pause.timer), pause.resolve(); // ends a pause after a failed accept at once
      try {
        listener.close();
      } catch { /* already closed */ }
    },
    close() {
      this.stop();
      for (const conn of open) close(conn);
      open.clear();
      settle();
    },
    settled: () => open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve)),
    unref() {
      unrefd = true;
      listener.unref();
      for (const conn of open) conn.unref();
    },
  };
}

function close(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* already closed */ }
}

async function relay(
  client: Deno.TcpConn,
  port: number,
  promptAck: boolean,
  track: (conn: Deno.Conn) => void,
  open: Set<Deno.Conn>,
  settle: () => void,
): Promise<void> {
  let server: Deno.TcpConn;
  try {
    server = await Deno.connect({ hostname: "127.0.0.1", port });
  } catch {
    open.delete(client);
    return close(client);
  }
  if (!open.has(client)) return close(server); // close() ran while it connected
  track(server);
  client.setNoDelay(true);
  server.setNoDelay(true);
  const end = () => {
    for (const conn of [client, server]) open.delete(conn), close(conn);
    settle();
  };
  // Writes to the client in order: the server's bytes, and the acknowledging frames between its frames.
  let toClient: Promise<void> = Promise.resolve();
  const send = (bytes: Uint8Array) => (toClient = toClient.then(() => writeAll(client, bytes)).catch(end));
  let h2: boolean | undefined;
  const fromServer = new FrameCursor();
  let owed = -1; // the stream of an acknowledgement owed until the server's bytes reach a frame's end
  // Between two of the server's frames, after its first: its SETTINGS frame must come first (RFC 9113 3.4).
  const betweenFrames = () => fromServer.atBoundary && fromServer.type >= 0;
  const acknowledge = (stream: number) => {
    if (betweenFrames()) send(priorityFrame(stream));
    else owed = stream;
  };
  (async () => {
    const buffer = new Uint8Array(65536);
    for (let n; (n = await server.read(buffer)) !== null;) {
      let bytes = buffer.subarray(0, n);
      if (h2 && owed > 0) {
        // An acknowledgement owed goes at the first frame's end, ahead of the rest (an answer may follow at once).
        const head = fromServer.toFrameEnd(bytes);
        await send(bytes.subarray(0, head));
        if (owed > 0 && betweenFrames()) send(priorityFrame(owed)), owed = -1;
        bytes = bytes.subarray(head);
      }
      if (h2) fromServer.feed(bytes);
      await send(bytes);
      if (owed > 0 && betweenFrames()) send(priorityFrame(owed)), owed = -1;
    }
  })().catch(() => {}).finally(end);
  const fromClient = new FrameCursor(PREFACE_LENGTH);
  const buffer = new Uint8Array(65536);
  let first: Uint8Array = new Uint8Array(0);
  try {
    for (let n; (n = await client.read(buffer)) !== null;) {
      let bytes: Uint8Array = buffer.subarray(0, n);
      if (h2 === undefined) {
        first = concat(first, bytes);
        h2 = isHttp2(first) && promptAck;
        if (isHttp2(first) === undefined) continue;
        bytes = first;
      }
      if (h2) {
        fromClient.feed(bytes);
        // The request in part may be any stream's; name the last one the client opened, never one it did not.
        if (fromClient.midRequest && fromClient.opened > 0) acknowledge(fromClient.opened);
      }
      await writeAll(server, bytes);
    }
    // Bytes held while HTTP/2 could not yet be told from HTTP/1.1 still reach the server, as they would directly.
    if (h2 === undefined && first.length > 0) await writeAll(server, first);
    await server.closeWrite();
  } catch {
    end();
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
