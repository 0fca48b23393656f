// A test KV Connect server with Deno's own client opened on it.
import { type KvConnectServer, startKvConnectServer } from "../../kvconnect/mod.ts";

/**
 * The one token of every test server: `deno test --parallel` runs test modules side by side in one process, whose
 * DENO_KV_ACCESS_TOKEN (read by Deno.openKv) they share, so each sets the same value.
 */
export const TEST_TOKEN = "kvconnect-example-token";

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
