// A token no client can send: Deno's KV client carries it in an HTTP header,
// where a control character (a newline from a pasted file, a stray \x01)
// makes the client process panic and a character past ASCII (é, €) is sent
// as other bytes and answered 401. The server must refuse such a token at
// start, naming what is wrong without showing it; spaces and tabs are sent as
// they are, and stay allowed.
import assert from "node:assert/strict";
import { startKvConnectServer } from "../../kvconnect/mod.ts";

const UNSENDABLE = [
  "kvconnect-token\n",
  "kvconnect\u0001token",
  "kvconnect-tokén",
  "kvconnect-token€",
  "kvconnect\u007ftoken",
];

Deno.test("startKvConnectServer refuses a token with a control character or one past ASCII, not showing it", async () => {
  for (const token of UNSENDABLE) {
    await assert.rejects(startKvConnectServer({ token }), (error: unknown) => {
      assert.ok(error instanceof TypeError, `${JSON.stringify(token)}: ${String(error)}`);
      assert.match(error.message, /^Cannot start the KV Connect server: 'token' must be printable ASCII/);
      assert.ok(!error.message.includes(token), "the token is not shown");
      return true;
    });
  }
  // Spaces and tabs reach the server as they are: such a token starts.
  const server = await startKvConnectServer({ token: "kvconnect token\twith spaces" });
  await server.close();
});

/** Runs the task; one that started anyway (it prints its url) is stopped, and its exit (0) shows it did. */
async function runMain(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  const main = new URL("../../kvconnect/main.ts", import.meta.url).pathname;
  const config = new URL("../../deno.json", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", config, main, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...env },
  }).spawn();
  const stderr = new Response(child.stderr).text();
  let stdout = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    stdout += chunk;
    if (/^use: /m.test(stdout)) child.kill("SIGTERM"); // its SIGTERM handler closes it and exits 0
  }
  return { code: (await child.status).code, stderr: await stderr };
}

Deno.test("deno task kvconnect: an unsendable --token or KV_CONNECT_TOKEN is a usage error naming its source", async () => {
  for (const token of UNSENDABLE) {
    const flag = await runMain([`--token=${token}`]);
    assert.equal(flag.code, 2, `${JSON.stringify(token)}: ${flag.stderr}`);
    assert.match(flag.stderr, /^Cannot start the KV Connect server: '--token' must be printable ASCII.*\nUsage: /);
    assert.ok(!flag.stderr.includes(token), "the token is not shown");
  }
  const env = await runMain([], { KV_CONNECT_TOKEN: "kvconnect-tokén" });
  assert.equal(env.code, 2, env.stderr);
  assert.match(
    env.stderr,
    /^Cannot start the KV Connect server: 'KV_CONNECT_TOKEN' must be printable ASCII.*\nUsage: /,
  );
  assert.ok(!env.stderr.includes("tokén"), "the token is not shown");
});
