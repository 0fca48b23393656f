// The KV Connect test server as a child process (`kvconnect/main.ts`) on a
// KV file and a port it binds itself, so a test can stop it (SIGSTOP), let it go on
// (SIGCONT), kill it (SIGKILL) and start it again on the same file and port,
// as an operator's KV server that stalls or crashes under load.

import { TEST_TOKEN } from "../kvconnect/token.ts";
import { type Started, startProcess } from "../../scripts/load_processes.ts";

/** A KV Connect server running in a child process. */
export interface KvChild {
  /** `http://127.0.0.1:<port>`, the same across restarts. */
  url: string;
  /** Sends a signal to the running server. */
  signal(signal: Deno.Signal): void;
  /** Kills the server (SIGKILL) and waits for it to be gone. */
  kill(): Promise<void>;
  /** Starts it again on the same file and port (after `kill`). */
  restart(): Promise<void>;
}

/** Starts the server on `port` (0: a free one it binds itself); the child, and the port it listens on. */
async function spawn(
  path: string,
  port: number,
  latencyMs: number,
): Promise<{ child: Deno.ChildProcess; port: number }> {
  const root = new URL("../..", import.meta.url);
  const args = ["run", "-A", "--config", new URL("deno.json", root).pathname, "kvconnect/main.ts"];
  args.push("--path", path, "--port", String(port), "--token", TEST_TOKEN);
  if (latencyMs > 0) args.push("--latency", String(latencyMs));
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: root.pathname,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!/^url: .*:\d+\r?\n/m.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the KV Connect server did not start: ${seen}`);
    seen += value;
  }
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  return { child, port: Number(/^url: .*:(\d+)\r?\n/m.exec(seen)![1]) };
}

/** Starts the server on `path` (a free port), each answer `latencyMs` late; `close` is called by `using`. */
export async function startKvChild(path: string, latencyMs = 0): Promise<KvChild & AsyncDisposable> {
  // The child binds a free port itself: a port picked here, closed and bound by the child later, could be taken
  // meanwhile by another test module running beside this one.
  let { child, port } = await spawn(path, 0, latencyMs);
  const kill = async () => {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    await child.status;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    signal: (signal) => child.kill(signal),
    kill,
    async restart() {
      ({ child } = await spawn(path, port, latencyMs));
    },
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGCONT");
      } catch { /* already gone */ }
      await kill();
    },
  };
}

/** The console as a process over `kv`, the load test's receiving settings (sandbox on, no receiver limit), and `env`. */
export function startConsoleOver(kv: KvChild, env: Record<string, string> = {}): Promise<Started> {
  return startProcess(["console/main.ts"], {
    PORT: "0",
    HOST: "127.0.0.1",
    KV_PATH: kv.url,
    DENO_KV_ACCESS_TOKEN: TEST_TOKEN,
    SANDBOX: "on",
    DELIVERIES_RETAIN: "100000",
    RATE_LIMIT_RECEIVER: "0",
    ...env,
  });
}
