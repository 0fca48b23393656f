// Starting the test KV Connect server where it cannot start: a port another
// process holds, a token too short. Each must fail with the reason named, and
// leave nothing running behind it (the test sanitizers see a leaked server).
import assert from "node:assert/strict";
import { startKvConnectServer } from "../../kvconnect/mod.ts";

Deno.test("startKvConnectServer on a port in use rejects with AddrInUse and leaves no server behind", async () => {
  const holder = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (holder.addr as Deno.NetAddr).port;
  try {
    await assert.rejects(startKvConnectServer({ port }), (error: unknown) => {
      assert.ok(error instanceof Deno.errors.AddrInUse, `expected AddrInUse, got ${String(error)}`);
      return true;
    });
  } finally {
    holder.close();
  }
  // The port is free again and the server starts on it.
  const server = await startKvConnectServer({ port });
  try {
    assert.equal(server.url, `http://127.0.0.1:${port}`);
  } finally {
    await server.close();
  }
});
