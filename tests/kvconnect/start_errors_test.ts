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

async function runMain(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  const main = new URL("../../kvconnect/main.ts", import.meta.url).pathname;
  const config = new URL("../../deno.json", import.meta.url).pathname;
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", config, main, ...args],
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1", ...env },
  }).output();
  return { code, stderr: new TextDecoder().decode(stderr) };
}

Deno.test("deno task kvconnect: a token under 12 characters is a usage error naming where it came from, not shown", async () => {
  const flag = await runMain(["--token", "short-tok"]);
  assert.equal(flag.code, 2, flag.stderr);
  assert.match(flag.stderr, /'--token' must have at least 12 characters\nUsage: deno task kvconnect /);
  assert.doesNotMatch(flag.stderr, /short-tok|Uncaught|\n\s+at /);
  const env = await runMain([], { KV_CONNECT_TOKEN: "env-tok" });
  assert.equal(env.code, 2, env.stderr);
  assert.match(env.stderr, /'KV_CONNECT_TOKEN' must have at least 12 characters\nUsage: deno task kvconnect /);
  assert.doesNotMatch(env.stderr, /env-tok|Uncaught|\n\s+at /);
});

Deno.test("deno task kvconnect: a port in use fails with status 1 and one line naming the address", async () => {
  const holder = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (holder.addr as Deno.NetAddr).port;
  try {
    const { code, stderr } = await runMain(["--port", String(port)]);
    assert.equal(code, 1, stderr);
    assert.equal(
      stderr,
      `Cannot start the KV Connect server: 127.0.0.1:${port} is in use (another process listens there)\n`,
    );
  } finally {
    holder.close();
  }
});
