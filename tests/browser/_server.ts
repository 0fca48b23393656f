// Test helper: a real HTTP server on 127.0.0.1 (port 0) that the request tests talk to.

/** What the echo routes saw of a request. */
export interface Echo {
  method: string;
  contentType: string | null;
  custom: string | null;
  body: string;
}

/** Starts the test server; `close()` shuts it down. */
export function startServer(extra?: (req: Request, url: URL) => Response | undefined): {
  base: string;
  close: () => Promise<void>;
} {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const custom = extra?.(req, url);
    if (custom) return custom;
    switch (url.pathname) {
      case "/text":
        return new Response("plain text", { headers: { "content-type": "text/plain" } });
      case "/json":
        return Response.json({ ok: true, list: [1, 2] });
      case "/problem":
        return new Response(JSON.stringify({ title: "Bad thing" }), {
          status: 422,
          headers: { "content-type": "application/problem+json" },
        });
      case "/json-as-text":
        return new Response(`{"n":1}`, { headers: { "content-type": "text/plain" } });
      case "/broken-json":
        return new Response(`{"n":`, { headers: { "content-type": "application/json" } });
      case "/empty":
        return new Response(null, { status: 204 });
      case "/echo": {
        const echo: Echo = {
          method: req.method,
          contentType: req.headers.get("content-type"),
          custom: req.headers.get("x-custom"),
          body: await req.text(),
        };
        return Response.json(echo);
      }
      case "/slow":
        await new Promise((r) => setTimeout(r, 300));
        return new Response("late");
      default:
        return new Response("not here", { status: 404, headers: { "content-type": "text/plain" } });
    }
  });
  return { base: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

/** A port of 127.0.0.1 that refuses connections, held by this process until disposed. */
export interface ClosedPort extends Disposable {
  port: number;
}

/**
 * A port with nothing listening on it, for as long as it is held: the local
 * port of a connection this process keeps open. A connect there is refused
 * (no listener on it), and no one can listen on it meanwhile: a bind to it,
 * on 127.0.0.1 or 0.0.0.0, with SO_REUSEADDR or SO_REUSEPORT, is
 * EADDRINUSE, since the connection's socket set neither. A port bound and
 * released instead could be handed again to the next bind to port 0, by
 * another test file under `deno test --parallel`.
 */
export async function closedPort(): Promise<ClosedPort> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const client = await Deno.connect({ hostname: "127.0.0.1", port: (listener.addr as Deno.NetAddr).port });
    const served = await listener.accept();
    return {
      port: (client.localAddr as Deno.NetAddr).port,
      [Symbol.dispose]() {
        client.close();
        served.close();
      },
    };
  } finally {
    listener.close();
  }
}
