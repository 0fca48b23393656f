// Child of trickle_rss_test.ts: serves, on 127.0.0.1 (port 0), either the
// console over a `:memory:` KV (`console`) or a bare Deno.serve whose handler
// reads the body for 10 s, as the receiver does, and answers 408 (`bare`);
// prints `listening <port>`; answers GET /memory with its heap plus external
// bytes after a full GC (run with --v8-flags=--expose-gc), and GET /sockets
// with how many sockets it holds open (its listener and the test's own
// connection among them) and its resident set size (RSS), for the log.

import { measuredBytes } from "../_memory.ts";

// Fails at once without --expose-gc, before anything is served.
measuredBytes();

const kind = Deno.args[0];
if (kind !== "console" && kind !== "bare") throw new Error(`Give 'console' or 'bare', got ${kind}`);

/** The bare server's answer: the body read until it ends or 10 s passed. */
async function bare(request: Request): Promise<Response> {
  const reader = request.body!.getReader();
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    reader.cancel().catch(() => {});
  }, 10_000);
  try {
    while (!(await reader.read()).done);
  } catch {
    late = true;
  } finally {
    clearTimeout(timer);
  }
  return late ? Response.json({ error: "Request timeout" }, { status: 408 }) : Response.json({ ok: true });
}

/** How many of this process's file descriptors are sockets (Linux: /proc/self/fd). */
function openSockets(): number {
  let count = 0;
  for (const entry of Deno.readDirSync("/proc/self/fd")) {
    try {
      if (Deno.readLinkSync(`/proc/self/fd/${entry.name}`).startsWith("socket:")) count++;
    } catch {
      // Closed while the folder was read (the listing's own descriptor).
    }
  }
  return count;
}

let handler: (request: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response> = bare;
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request, info) => {
  if (request.method === "GET" && new URL(request.url).pathname === "/memory") {
    return Response.json({ bytes: measuredBytes() });
  }
  if (request.method === "GET" && new URL(request.url).pathname === "/sockets") {
    return Response.json({ sockets: openSockets(), rss: Deno.memoryUsage().rss });
  }
  return handler(request, info);
});
if (kind === "console") {
  // Imported only here: the bare server loads nothing of the console.
  const { createApp } = await import("../../console/app.ts");
  const app = createApp({
    kv: await Deno.openKv(":memory:"),
    publicUrl: `http://127.0.0.1:${server.addr.port}`,
    buildAssets: false,
    allowPrivateNetwork: true,
  });
  await app.ready;
  handler = app.fetch;
}
console.log(`listening ${server.addr.port}`);
await server.finished;
