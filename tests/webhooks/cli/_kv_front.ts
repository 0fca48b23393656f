// The KV Connect test server as a child process behind a front on 127.0.0.1
// that passes every request through; at the request named (or when told), the
// front kills the child and never answers (a server gone silent), or answers
// what it is given. Shared by the CLI's tests of a KV lost mid-command.

import { ROOT } from "./_cli_setup.ts";
import { TEST_TOKEN } from "../../kvconnect/token.ts";

/** The test KV Connect server as a child process (`kvconnect/main.ts`) on a temp file; resolves with its URL. */
export async function startServerChild(path: string): Promise<{ url: string; child: Deno.ChildProcess }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "kvconnect/main.ts", "--token", TEST_TOKEN, "--path", path],
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!/url: \S+\n/.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the KV Connect server did not start: ${seen}`);
    seen += value;
  }
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  return { url: /url: (\S+)/.exec(seen)![1], child };
}

/**
 * A front for `target` that passes requests through until the first whose
 * path is `lostAt` (the `nth` such, when given): from then on it calls
 * `onLost` once and answers nothing until closed, or, with `answer`, answers
 * that to every request.
 */
export function startFront(
  target: string,
  lostAt: string,
  onLost: () => Promise<void>,
  answer?: () => Response,
  nth = 1,
) {
  const closing = new AbortController();
  let lost = false;
  let seen = 0;
  const never = () =>
    new Promise<Response>((resolve) => {
      closing.signal.addEventListener("abort", () => resolve(new Response(null, { status: 503 })), { once: true });
    });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const url = new URL(request.url);
    if (lost || (url.pathname === lostAt && ++seen >= nth)) {
      if (!lost) {
        lost = true;
        await onLost();
      }
      await request.body?.cancel();
      return answer ? answer() : never();
    }
    const body = request.body ? await request.arrayBuffer() : undefined;
    const headers = new Headers(request.headers);
    headers.delete("host");
    return await fetch(new URL(url.pathname + url.search, target), { method: request.method, headers, body });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    /** Loses the server now, whatever the request. */
    lose: async () => {
      if (lost) return;
      lost = true;
      await onLost();
    },
    get lost() {
      return lost;
    },
    close: async () => {
      closing.abort();
      await server.shutdown();
    },
  };
}

/**
 * Runs `fn` with a server child on a fresh file (or on `path`, a KV file
 * already seeded) and a front for it that loses the server at `lostAt` (its
 * `nth` request there).
 */
export async function withLostServer(
  lostAt: string,
  fn: (front: { url: string; lost: boolean; lose(): Promise<void> }) => Promise<void>,
  answer?: () => Response,
  path?: string,
  nth = 1,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cli_kv_lost_" });
  const server = await startServerChild(path ?? `${dir}/server.kv`);
  const kill = async () => {
    try {
      server.child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await server.child.status;
  };
  const front = startFront(server.url, lostAt, kill, answer, nth);
  try {
    await fn(front);
  } finally {
    await front.close();
    await kill();
    await Deno.remove(dir, { recursive: true });
  }
}
