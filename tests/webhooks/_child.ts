// Child `deno run` processes for the process-level tests of Module A: write a
// script to a temp dir, run it with the project's deno.json, wait for marker
// lines on its stdout, and kill it (SIGKILL) and reap it in `finally`.

import { fileURLToPath } from "node:url";

/** The project's root folder, found from this file's place (tests/webhooks/). */
export const PROJECT_ROOT: URL = new URL("../../", import.meta.url);
/** Path of the project's deno.json, passed as `--config` to every child. */
export const CONFIG_PATH: string = fileURLToPath(new URL("deno.json", PROJECT_ROOT));
/** Absolute file URL of Module A, for `import` lines in child scripts. */
export const WEBHOOKS_MOD: string = new URL("webhooks/mod.ts", PROJECT_ROOT).href;

/** A running child process and what it printed so far. */
export interface Child {
  readonly pid: number;
  /** Every complete stdout line so far. */
  readonly lines: string[];
  /**
   * Resolves with the first stdout line (already seen or to come) that equals
   * `marker` or matches it; rejects when the child's stdout ends first or after
   * `timeoutMs`, with the child's stderr in the message.
   */
  waitFor(marker: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Sends a line to the child's stdin (only with `stdin: true`). */
  send(line: string): Promise<void>;
  /** Resolves when the child has exited on its own, with its status and stderr. */
  done(): Promise<{ status: Deno.CommandStatus; stderr: string }>;
  /** Kills the child with SIGKILL if it still runs, then reaps it and drains its pipes. Safe to call twice. */
  kill(): Promise<Deno.CommandStatus>;
}

/** Options of {@linkcode spawnChild}. */
export interface SpawnOptions {
  /** Give the child a stdin pipe for {@linkcode Child.send} (default: no stdin). */
  stdin?: boolean;
}

interface Waiter {
  marker: string | RegExp;
  resolve: (line: string) => void;
  reject: (error: Error) => void;
}

function matches(line: string, marker: string | RegExp): boolean {
  return typeof marker === "string" ? line === marker : marker.test(line);
}

/**
 * Writes a child script into `dir`.
 *
 * @param dir A temp dir (from `Deno.makeTempDir()`).
 * @param name The file name, ending in `.js` or `.ts`.
 * @param source The script; it may import {@linkcode WEBHOOKS_MOD}.
 * @returns The script's path.
 */
export async function writeChildScript(dir: string, name: string, source: string): Promise<string> {
  const path = `${dir}/${name}`;
  await Deno.writeTextFile(path, source);
  return path;
}

/**
 * Starts `deno run -A --unstable-kv --config <project>/deno.json <script> ...args`.
 *
 * @param script Path of the script.
 * @param args Arguments the script reads from `Deno.args`.
 * @param options Whether the child gets a stdin pipe.
 * @returns The running child; call `kill()` in `finally`.
 */
export function spawnChild(script: string, args: string[] = [], options: SpawnOptions = {}): Child {
  const proc = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", "--quiet", "--config", CONFIG_PATH, script, ...args],
    stdin: options.stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();

  const lines: string[] = [];
  const waiters = new Set<Waiter>();
  let ended = false;
  let stderr = "";
  const stderrDone = proc.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({
      write(chunk) {
        stderr += chunk;
      },
    }),
  ).catch(() => {});

  function failAll(): void {
    for (const waiter of waiters) {
      waiter.reject(new Error(`The child's stdout ended before ${waiter.marker}; stdout: ${lines.join(" | ")}`));
    }
    waiters.clear();
  }

  let partial = "";
  const stdoutDone = proc.stdout.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({
      write(chunk) {
        partial += chunk;
        const parts = partial.split("\n");
        partial = parts.pop()!;
        for (const line of parts) {
          lines.push(line);
          for (const waiter of waiters) {
            if (matches(line, waiter.marker)) {
              waiters.delete(waiter);
              waiter.resolve(line);
            }
          }
        }
      },
    }),
  ).catch(() => {}).finally(() => {
    ended = true;
    // Let stderr catch up so that the rejection can show it.
    stderrDone.then(failAll);
  });

  const writer = options.stdin ? proc.stdin.getWriter() : undefined;
  const encoder = new TextEncoder();
  let status: Promise<Deno.CommandStatus> | undefined;

  async function reap(): Promise<Deno.CommandStatus> {
    status ??= (async () => {
      await writer?.close().catch(() => {});
      const result = await proc.status;
      await Promise.all([stdoutDone, stderrDone]);
      return result;
    })();
    return await status;
  }

  return {
    pid: proc.pid,
    lines,
    waitFor(marker, timeoutMs = 20_000) {
      const seen = lines.find((line) => matches(line, marker));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`No line ${marker} from the child within ${timeoutMs} ms; stderr: ${stderr}`));
        }, timeoutMs);
        const waiter: Waiter = {
          marker,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(new Error(`${error.message}; stderr: ${stderr}`));
          },
        };
        waiters.add(waiter);
        if (ended) stderrDone.then(failAll);
      });
    },
    async send(line) {
      if (!writer) throw new TypeError("Cannot send to the child: it was spawned without stdin");
      await writer.write(encoder.encode(line + "\n"));
    },
    async done() {
      const result = await reap();
      return { status: result, stderr };
    },
    async kill() {
      try {
        proc.kill("SIGKILL");
      } catch {
        // Already exited.
      }
      return await reap();
    },
  };
}
