// A test KV Connect server with Deno's own client opened on it.
import { type KvConnectServer, startKvConnectServer } from "../../kvconnect/mod.ts";

import { TEST_TOKEN } from "./token.ts";

export { TEST_TOKEN };

/** Runs `fn` with a fresh server over `path` (":memory:" by default) and Deno's client on it; closes both. */
export async function withRemote(
  fn: (kv: Deno.Kv, server: KvConnectServer) => Promise<void>,
  path = ":memory:",
): Promise<void> {
  const server = await startKvConnectServer({ path, token: TEST_TOKEN });
  Deno.env.set("DENO_KV_ACCESS_TOKEN", TEST_TOKEN);
  const kv = await Deno.openKv(server.url);
  try {
    await fn(kv, server);
  } finally {
    kv.close();
    await server.close();
  }
}
