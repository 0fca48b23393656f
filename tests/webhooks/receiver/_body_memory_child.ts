// Child of body_memory_test.ts: serves a receiver over a `:memory:` KV on
// 127.0.0.1 (port 0), prints `listening <port>`, and answers GET /memory with
// the heap plus external bytes after a full GC. Run with --v8-flags=--expose-gc.

import { createReceiver, createWebhooks } from "../../../webhooks/mod.ts";
import { measuredBytes } from "../../_memory.ts";

// Fails at once without --expose-gc, before anything is served.
measuredBytes();

const kv = await Deno.openKv(":memory:");
const receiver = createReceiver(createWebhooks(kv), {
  onPostback: () => {},
  // Long enough that the trickling connections are still being read when measured.
  bodyTimeoutMs: 120_000,
});
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening ${port}`),
}, (request, info) => {
  if (request.method === "GET" && new URL(request.url).pathname === "/memory") {
    return Response.json({ bytes: measuredBytes() });
  }
  return receiver.handle(request, info);
});
await server.finished;
