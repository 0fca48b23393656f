// Two console processes on one KV file behind one address, as an operator runs them behind a load balancer
// (docs/console-config.md, "Deploying beyond one machine"): a reverse proxy on 127.0.0.1 hands each request to
// console A or B (in turn, or as a test says), and both are started with PUBLIC_URL set to the proxy, so every
// redirect, callback and form of a flow comes back through it to whichever process is next.

import http from "node:http";
import { endChild } from "../_child.ts";
import { consoleCommand, untilStartLine } from "./_main_process.ts";

/** A console process behind the proxy. */
export type Side = "A" | "B";

/** The proxy and its two consoles. */
export interface Balanced extends AsyncDisposable {
  /** The proxy's origin: PUBLIC_URL of both consoles. */
  origin: string;
  /** The KV file both consoles open. */
  kvPath: string;
  /** Each console's own origin. */
  direct: Record<Side, string>;
  /** Which console answered each request, in order, with its method and path. */
  served: { side: Side; method: string; path: string }[];
  /** Sends the next requests to these consoles, in order (then back to taking turns). */
  next(...sides: Side[]): void;
  /** Routes by request from now on (`null`: taking turns again); `next` still comes first. */
  route(choose: ((method: string, path: string) => Side) | null): void;
  /** What each console printed on stderr so far. */
  stderr(side: Side): string;
  /** Stops both consoles and the proxy, and removes the KV's folder. */
  close(): Promise<void>;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Forwards `req` to `port` keeping its Host (the proxy's), as nginx does with `proxy_set_header Host $host`. */
async function forward(req: Request, port: number): Promise<Response> {
  const url = new URL(req.url);
  const headers: Record<string, string> = {};
  req.headers.forEach((value, name) => headers[name] = value);
  headers.host = url.host;
  const body = req.body ? new Uint8Array(await req.arrayBuffer()) : undefined;
  return await new Promise<Response>((resolve, reject) => {
    const out = http.request({
      host: "127.0.0.1",
      port,
      method: req.method,
      path: url.pathname + url.search,
      headers,
    }, (res) => {
      const answer = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value === undefined || ["connection", "transfer-encoding", "keep-alive"].includes(name)) continue;
        for (const one of Array.isArray(value) ? value : [value]) answer.append(name, one);
      }
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          res.on("data", (chunk: Uint8Array) => controller.enqueue(new Uint8Array(chunk)));
          res.on("end", () => controller.close());
          res.on("error", (err) => controller.error(err));
        },
        cancel() {
          res.destroy();
        },
      });
      const empty = req.method === "HEAD" || [204, 304].includes(res.statusCode ?? 0);
      resolve(new Response(empty ? null : stream, { status: res.statusCode, headers: answer }));
    });
    out.on("error", reject);
    if (body) out.write(body);
    out.end();
  });
}

/** Starts a console process on `kvPath` listening on `port`, reached at `publicUrl`; `env` is added. */
async function startSide(kvPath: string, port: number, publicUrl: string, env: Record<string, string>) {
  const child = consoleCommand({
    HOST: "127.0.0.1",
    PORT: String(port),
    KV_PATH: kvPath,
    PUBLIC_URL: publicUrl,
    SANDBOX: "on",
    ALLOW_PRIVATE_NETWORK: "1",
    ...env,
  }).spawn();
  let stderr = "";
  const stderrRead = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })().catch(() => {});
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const text = await untilStartLine(reader);
  if (!/listening on /.test(text)) {
    await child.status;
    await stderrRead;
    throw new Error(`a console did not start: ${text}${stderr}`);
  }
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  return {
    stderr: () => stderr,
    stop: () => endChild(child, "SIGTERM"),
  };
}

/**
 * Starts the proxy, then console A and console B (one after the other) on a new KV file, both with PUBLIC_URL the
 * proxy's origin and `env` (sandbox on, private network allowed, default rate limits unless `env` says).
 */
export async function startBalanced(env: Record<string, string> = {}): Promise<Balanced> {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/console.kv`;
  const ports: Record<Side, number> = { A: 0, B: 0 };
  const served: Balanced["served"] = [];
  const queue: Side[] = [];
  let turn: Side = "B";
  let choose: ((method: string, path: string) => Side) | null = null;
  const proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const { pathname, search } = new URL(req.url);
    const side = queue.shift() ?? choose?.(req.method, pathname) ?? (turn = turn === "A" ? "B" : "A");
    served.push({ side, method: req.method, path: pathname + search });
    try {
      return await forward(req, ports[side]);
    } catch (err) {
      return new Response(`proxy: console ${side} did not answer: ${err}`, { status: 502 });
    }
  });
  const origin = `http://127.0.0.1:${proxy.addr.port}`;
  const sides: Partial<Record<Side, Awaited<ReturnType<typeof startSide>>>> = {};
  const close = async () => {
    await Promise.all(Object.values(sides).map((s) => s.stop()));
    await proxy.shutdown();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    for (const side of ["A", "B"] as const) {
      // The port is picked here and bound by the console a second later: one a test module running beside this one
      // took meanwhile (the console says it "is in use") is picked again.
      for (let tries = 1; sides[side] === undefined; tries++) {
        ports[side] = freePort();
        sides[side] = await startSide(kvPath, ports[side], origin, env).catch((err) => {
          if (tries >= 5 || !String(err).includes("is in use")) throw err;
          return undefined;
        });
      }
    }
  } catch (err) {
    await close();
    throw err;
  }
  return {
    origin,
    kvPath,
    direct: { A: `http://127.0.0.1:${ports.A}`, B: `http://127.0.0.1:${ports.B}` },
    served,
    next: (...sides) => void queue.push(...sides),
    route: (fn) => void (choose = fn),
    stderr: (side) => sides[side]?.stderr() ?? "",
    close,
    [Symbol.asyncDispose]: close,
  };
}
