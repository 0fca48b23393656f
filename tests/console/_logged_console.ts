// The console as a child process on a KV file whose whole output (stdout and
// stderr) is kept, so a kill test can look for secrets in its log, and kill
// it (SIGKILL, as `kill -9`) at the moment it chooses.

const ROOT = new URL("../../", import.meta.url);

/** A running console process and what it printed so far. */
export interface LoggedConsole {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Everything it printed so far, stdout and stderr. */
  log(): string;
  /** Kills it (SIGKILL) and waits for it to be gone. */
  kill(): Promise<void>;
}

/** Starts `console/main.ts` over the KV file `kvPath`, the sandbox on, private addresses allowed, and `env`. */
export async function startLoggedConsole(
  kvPath: string,
  env: Record<string, string> = {},
): Promise<LoggedConsole> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", new URL("deno.json", ROOT).pathname, "console/main.ts"],
    cwd: ROOT.pathname,
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      KV_PATH: kvPath,
      SANDBOX: "on",
      ALLOW_PRIVATE_NETWORK: "1",
      NO_COLOR: "1",
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const started = Promise.withResolvers<string>();
  const read = async (stream: ReadableStream<Uint8Array<ArrayBuffer>>) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      const url = /http:\/\/127\.0\.0\.1:\d+/.exec(text)?.[0];
      if (url) started.resolve(url);
    }
  };
  const drained = Promise.all([read(child.stdout), read(child.stderr)]).catch(() => {});
  const timer = setTimeout(() => started.reject(new Error(`the console did not start: ${text.slice(0, 500)}`)), 60_000);
  child.status.then(() => started.reject(new Error(`the console exited: ${text.slice(0, 500)}`)));
  let url: string;
  try {
    url = await started.promise;
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  } finally {
    clearTimeout(timer);
  }
  let gone = false;
  return {
    url,
    log: () => text,
    async kill() {
      if (!gone) {
        gone = true;
        try {
          child.kill("SIGKILL");
        } catch { /* already gone */ }
      }
      await child.status;
      await drained;
    },
  };
}
