// close() called twice, at once (a test's `finally` beside its teardown, Ctrl-C while a script closes) or one after
// the other, resolves each time: the second call waits for the first and ends nothing twice. A real server, a real KV.
import assert from "node:assert/strict";
import { startKvConnectServer } from "../../kvconnect/mod.ts";

Deno.test("close: two calls at once both resolve, and the server is closed", async () => {
  const server = await startKvConnectServer();
  const port = Number(new URL(server.url).port);
  await Promise.all([server.close(), server.close()]);
  await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port }), Deno.errors.ConnectionRefused);
});

Deno.test("close: a call after the server closed resolves too", async () => {
  const server = await startKvConnectServer();
  await server.close();
  await server.close();
});
