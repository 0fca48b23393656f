/**
 * Deliveries: the page (a live island), its JSON feed for the island, the
 * server-sent events that tell the island a delivery arrived, and a detail
 * page with the payload.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { getCookie } from "hono/cookie";
import { streamSSE } from "hono/streaming";
import { Island } from "../components/Island.tsx";
import { Layout } from "../components/Layout.tsx";
import DeliveriesLive from "../islands/DeliveriesLive.tsx";
import { type ConsoleEnv, cookieName, type Deps, html, layoutFrame, SESSION_COOKIE } from "../lib/context.ts";

/** Time between keep-alive comments on an idle event stream. */
const HEARTBEAT_MS = 20_000;

/** Adds the delivery routes to `app`. */
export function deliveryRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  const hookOf = (c: Context<ConsoleEnv>) => {
    const hook = c.req.query("hook") ?? "";
    return hook && hook.length <= 200 ? hook : undefined;
  };

  app.get("/deliveries", async (c) => {
    const hookId = hookOf(c);
    const deliveries = await deps.deliveries.list({ hookId, limit: 50 });
    return html(
      c,
      <Layout title="Deliveries" {...layoutFrame(c, deps)}>
        <p>
          Postbacks received by this console{hookId
            ? (
              <>
                {" "}for webhook <a href={`/webhooks/${encodeURIComponent(hookId)}`}>{hookId}</a>
              </>
            )
            : ""}, newest first. The list updates by itself when one arrives.
        </p>
        <Island name="DeliveriesLive" props={{ deliveries, hookId }}>
          <DeliveriesLive deliveries={deliveries} hookId={hookId} />
        </Island>
      </Layout>,
    );
  });

  app.get("/deliveries.json", async (c) => {
    const after = Number(c.req.query("after") ?? "");
    const values = await deps.deliveries.list({
      hookId: hookOf(c),
      after: Number.isSafeInteger(after) && after > 0 ? after : undefined,
      limit: 100,
      // After a known delivery: the next ones in order, so paging on skips none.
      forward: after > 0,
    });
    return c.json({ values: after > 0 ? values.reverse() : values });
  });

  app.get("/deliveries/events", (c) => {
    const hookId = hookOf(c);
    const sessionId = getCookie(c, cookieName(c, deps, SESSION_COOKIE));
    return streamSSE(c, async (stream) => {
      const done = new AbortController();
      const stop = () => done.abort();
      stream.onAbort(stop);
      deps.closing.addEventListener("abort", stop, { once: true });
      const newest = await deps.deliveries.list({ hookId, limit: 1 });
      let last = newest[0]?.seq ?? 0;
      const heartbeat = setInterval(() => {
        stream.write(": keep-alive\n\n").catch(stop);
      }, HEARTBEAT_MS);
      try {
        await stream.writeSSE({ event: "ready", data: String(last) });
        await deps.deliveries.watch(done.signal, async () => {
          // The session may end while the stream is open (sign-out,
          // expiry): the stream ends with it.
          if (!(await deps.sessions.get(sessionId))) return stop();
          for (;;) {
            const added = await deps.deliveries.list({ hookId, after: last, limit: 100, forward: true });
            for (const view of added) {
              await stream.writeSSE({
                event: "delivery",
                id: String(view.seq),
                data: JSON.stringify({ id: view.id, hookId: view.hookId, seq: view.seq }),
              });
              last = view.seq;
            }
            if (added.length < 100) break;
          }
        });
      } catch {
        // the client went away mid-write
      } finally {
        clearInterval(heartbeat);
        deps.closing.removeEventListener("abort", stop);
      }
    });
  });

  app.get("/deliveries/:id", async (c) => {
    const delivery = await deps.deliveries.get(c.req.param("id"));
    if (!delivery) {
      return html(
        c,
        <Layout title="Delivery not found" {...layoutFrame(c, deps)}>
          <p>
            No delivery has that id (deliveries are kept for a while only). <a href="/deliveries">All deliveries</a>
          </p>
        </Layout>,
        404,
      );
    }
    let pretty = delivery.payload;
    try {
      pretty = JSON.stringify(JSON.parse(delivery.payload), null, 2);
    } catch {
      // a cut payload stays as it is
    }
    return html(
      c,
      <Layout title={`Delivery ${delivery.id}`} {...layoutFrame(c, deps)}>
        <p>
          Received <time dateTime={delivery.receivedAt}>{delivery.receivedAt}</time> for webhook{" "}
          <a href={`/webhooks/${encodeURIComponent(delivery.hookId)}`}>
            {delivery.hookId}
          </a>
          {delivery.truncated && " (payload cut to fit the store)"}
        </p>
        <pre id="payload">{pretty}</pre>
      </Layout>,
    );
  });
}
