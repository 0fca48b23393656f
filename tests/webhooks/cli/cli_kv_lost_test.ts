// The CLI against a KV Connect server lost mid-command: Deno's remote client
// waits (and retries) for good, so a command in a script hung until Ctrl-C.
// Each KV operation now has a time limit (KV_TIMEOUT_SECONDS, 30 s by
// default): past it the command exits 1, naming the KV's origin (never the
// access token), and a write says it may have been stored.
//
// The test server runs as a child process behind a front (_kv_front.ts) that
// passes every request through; at the request named, the front kills the
// child and never answers (a server gone silent). Each CLI run is bounded by
// the test itself: past BOUND_MS it is killed, and the test fails.

import assert from "node:assert/strict";
import { ROOT } from "./_cli_setup.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";
import { withLostServer } from "./_kv_front.ts";

/** The limit the CLI is run with (KV_TIMEOUT_SECONDS). */
const LIMIT_SECONDS = "2";
/** The test's own bound on a CLI run: the limit plus ample slack for a loaded machine. */
const BOUND_MS = 25_000;

interface Exited {
  code: number;
  stdout: string;
  stderr: string;
  /** Whether the run was killed at BOUND_MS rather than exiting on its own. */
  killed: boolean;
}

/** Runs the CLI in a subprocess with `env`, killed past BOUND_MS. */
async function runCli(args: string[], env: Record<string, string>): Promise<Exited> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "webhooks/cli.ts", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", DENO_KV_ACCESS_TOKEN: TEST_TOKEN, KV_TIMEOUT_SECONDS: LIMIT_SECONDS, ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill("SIGKILL");
  }, BOUND_MS);
  const out = await child.output();
  clearTimeout(timer);
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr), killed };
}

/** Asserts that `run` exited 1 on its own with one error naming the KV at `origin` and not naming the token. */
function failedNamingKv(run: Exited, origin: string): string {
  assert.equal(run.killed, false, `the CLI still ran after ${BOUND_MS / 1000} s (killed): ${run.stderr}`);
  assert.equal(run.code, 1, run.stderr);
  assert.ok(!run.stderr.includes(TEST_TOKEN) && !run.stdout.includes(TEST_TOKEN), "the access token printed");
  const error = run.stderr.split("\n").find((line) => line.startsWith("Error: "));
  assert.ok(error, `no error line: ${run.stderr}`);
  assert.ok(error.includes(`'${origin}'`), `the KV's origin not named: ${error}`);
  assert.match(error, new RegExp(`did not answer within ${LIMIT_SECONDS} s`));
  return error;
}

Deno.test("cli hooks list: a KV Connect server lost at the first read fails in bounded time, naming the KV", async () => {
  await withLostServer("/v2/snapshot_read", async (front) => {
    const run = await runCli(["hooks", "list", "--kv", front.url], {});
    assert.ok(front.lost, "the server was never lost");
    assert.equal(run.stdout, "");
    const error = failedNamingKv(run, front.url);
    assert.doesNotMatch(error, /may have been stored/); // a read: nothing written
  });
});

Deno.test("cli communities add: a KV Connect server lost at the write fails in bounded time, saying it may have been stored", async () => {
  await withLostServer("/v2/atomic_write", async (front) => {
    const run = await runCli(
      ["communities", "add", "--kv", front.url, "--name", "Acme", "--tenant", "t-1", "--base-url", "https://a.example"],
      {},
    );
    assert.ok(front.lost, "the server was never lost");
    assert.equal(run.stdout, "");
    assert.match(failedNamingKv(run, front.url), /may have been stored/);
  });
});

Deno.test("cli: a KV Connect URL whose server takes the connection but never answers fails in bounded time", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) conns.push(conn);
  })();
  const url = `http://127.0.0.1:${listener.addr.port}`;
  try {
    const run = await runCli(["communities", "list", "--kv", url], {});
    assert.equal(run.stdout, "");
    assert.match(failedNamingKv(run, url), /^Error: Cannot open the KV at /);
  } finally {
    listener.close();
    await accepting.catch(() => {});
    conns.forEach((conn) => conn.close());
  }
});

Deno.test("cli communities add: a KV Connect server that refuses the token mid-way (revoked) fails naming the KV", async () => {
  const revoked = () =>
    new Response("Invalid access token.", { status: 401, headers: { "content-type": "text/plain" } });
  await withLostServer("/v2/atomic_write", async (front) => {
    const run = await runCli(
      ["communities", "add", "--kv", front.url, "--name", "Acme", "--tenant", "t-1", "--base-url", "https://a.example"],
      {},
    );
    assert.ok(front.lost, "the token was never refused");
    assert.equal(run.killed, false, `the CLI still ran after ${BOUND_MS / 1000} s (killed): ${run.stderr}`);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stdout, "");
    assert.ok(!run.stderr.includes(TEST_TOKEN), "the access token printed");
    const error = run.stderr.split("\n").find((line) => line.startsWith("Error: "));
    assert.ok(error?.startsWith(`Error: The KV at '${front.url}' `), `the KV's origin not named first: ${run.stderr}`);
    assert.match(error ?? "", /Invalid access token/);
  }, revoked);
});

Deno.test("cli listen: a KV Connect server lost while it runs ends it with status 1, naming the KV", async () => {
  await withLostServer("never", async (front) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "webhooks/cli.ts", "listen", "--forward-to", "http://127.0.0.1:9/app", "--kv", front.url],
      cwd: ROOT,
      env: { NO_COLOR: "1", DENO_KV_ACCESS_TOKEN: TEST_TOKEN, KV_TIMEOUT_SECONDS: LIMIT_SECONDS },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let stderr = "";
    const reading = (async () => {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
        stderr += chunk;
        if (/Forwarding postbacks of /.test(stderr)) await front.lose();
      }
    })();
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL"); // not Ctrl-C: listen must end on its own
    }, BOUND_MS);
    const [status] = await Promise.all([child.status, reading, child.stdout.cancel()]);
    clearTimeout(timer);
    assert.ok(front.lost, `listen never started: ${stderr}`);
    const run = { code: status.code, stdout: "", stderr, killed };
    assert.match(failedNamingKv(run, front.url), /listen stopped/);
  });
});

Deno.test("cli: a KV Connect URL's password is not printed by the client's retries while its server is down", async () => {
  const down = () => new Response("Service unavailable", { status: 503 });
  await withLostServer("/v2/snapshot_read", async (front) => {
    const url = front.url.replace("http://", "http://kvuser:KV-PASSWORD-X@");
    const run = await runCli(["hooks", "list", "--kv", url], {});
    assert.ok(front.lost, "the server was never lost");
    assert.ok(!run.stderr.includes("KV-PASSWORD-X"), `the --kv URL's password printed: ${run.stderr}`);
    failedNamingKv(run, front.url);
  }, down);
});
