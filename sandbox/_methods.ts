// A method a route does not serve: 405 with `Allow` (RFC 9110 15.5.6), in the
// shape the route's clients read (each route file says which), instead of
// the router's bare "404 Not Found" text.
import type { Context, Hono } from "hono";

/** The methods a path serves, as `Allow` lists them: HEAD with GET, as the router answers HEAD with GET's route. */
function allowOf(methods: readonly string[]): string[] {
  return methods.flatMap((method) => method === "GET" ? ["GET", "HEAD"] : [method]);
}

/**
 * Answers every other method on `path` with 405 and `Allow`. Added after the
 * path's own routes, which the router tries first.
 *
 * @param app the sandbox's routes
 * @param route the path (as routed) and the methods it serves
 * @param answer the route's error answer, for the request, a message and the status
 */
export function refuseOtherMethods(
  app: Hono,
  route: { path: string; methods: readonly string[] },
  answer: (c: Context, message: string, status: 405) => Response | Promise<Response>,
): void {
  const allow = allowOf(route.methods);
  const list = allow.length === 1 ? allow[0] : `${allow.slice(0, -1).join(", ")} or ${allow.at(-1)}`;
  app.all(route.path, async (c) => {
    const where = new URL(c.req.url).pathname;
    // The method is an HTTP token; a long one is cut so the message stays short.
    const message = `The method ${c.req.method.slice(0, 20)} is not allowed on ${where.slice(0, 200)}: use ${list}`;
    const res = await answer(c, message, 405);
    res.headers.set("Allow", allow.join(", "));
    return res;
  });
}
