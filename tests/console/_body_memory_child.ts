// Child of body_memory_test.ts: serves the console over a `:memory:` KV on
// 127.0.0.1 (port 0), prints `listening <port>`, and answers GET /memory with
// the heap plus external bytes after a full GC. Run with --v8-flags=--expose-gc.

import { createApp } from "../../console/app.ts";
import { measuredBytes } from "../_memory.ts";

// Fails at once without --expose-gc, before anything is served.
measuredBytes();

const kv = await Deno.openKv(":memory:");
let handler: (request: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response> = () =>
  new Response("starting", { status: 503 });
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request, info) => {
  if (request.method === "GET" && new URL(request.url).pathname === "/memory") {
    return Response.json({ bytes: measuredBytes() });
  }
  return handler(request, info);
});
const app = createApp({
  kv,
  publicUrl: `http://127.0.0.1:${server.addr.port}`,
  buildAssets: false,
  allowPrivateNetwork: true,
});
await app.ready;
handler = app.fetch;
console.log(`listening ${server.addr.port}`);
await server.finished;
