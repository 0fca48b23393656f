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

/** A port with nothing listening on it (bound, then released). */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
