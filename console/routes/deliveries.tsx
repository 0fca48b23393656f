/**
 * Deliveries: the log page (a live island on its first, unfiltered page;
 * filters and cursor paging in the URL, working without JavaScript), its
 * JSON feed for the island and the server-sent events that tell the island
 * a delivery arrived. The detail page is `delivery_detail.tsx`.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { getCookie } from "hono/cookie";
import { streamSSE } from "hono/streaming";
import { DeliveryChart } from "../components/DeliveryChart.tsx";
import { Island } from "../components/Island.tsx";
import { Layout } from "../components/Layout.tsx";
import DeliveriesLive from "../islands/DeliveriesLive.tsx";
import { type ConsoleEnv, cookieName, type Deps, html, layoutFrame, noticeOf, SESSION_COOKIE } from "../lib/context.ts";
import type { DeliveryFilter } from "../lib/deliveries.ts";

/** Time between keep-alive comments on an idle event stream. */
const HEARTBEAT_MS = 20_000;

/** The filter of the deliveries page, from its query string (bounded). */
function filterOf(c: Context<ConsoleEnv>): DeliveryFilter {
  const text = (name: string, max: number) => {
    const v = c.req.query(name)?.trim() ?? "";
    return v && v.length <= max ? v : undefined;
  };
  const status = c.req.query("status");
  const before = Number(c.req.query("before"));
  // Times in UTC, as a datetime-local field sends them ("2026-11-24T10:00").
  const time = (name: string) => {
    const v = text(name, 40);
    const ms = v ? Date.parse(/Z|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`) : NaN;
    return Number.isFinite(ms) ? ms : undefined;
  };
  return {
    hookId: text("hook", 200),
    tenantId: text("community", 200),
    status: status === "accepted" || status === "rejected" ? status : undefined,
    verb: text("verb", 100),
    q: text("q", 200),
    from: time("from"),
    to: time("to"),
    before: Number.isSafeInteger(before) && before > 0 ? before : undefined,
  };
}

/** A filter as query parameters (empty ones left out). */
function query(filter: DeliveryFilter): Record<string, string> {
  const out: Record<string, string> = {};
  if (filter.hookId) out.hook = filter.hookId;
  if (filter.status) out.status = filter.status;
  if (filter.verb) out.verb = filter.verb;
  if (filter.tenantId) out.community = filter.tenantId;
  if (filter.from !== undefined) out.from = new Date(filter.from).toISOString().slice(0, 16);
  if (filter.to !== undefined) out.to = new Date(filter.to).toISOString().slice(0, 16);
  if (filter.q) out.q = filter.q;
  if (filter.before !== undefined) out.before = String(filter.before);
  return out;
}

/** Adds the delivery routes to `app`. */
export function deliveryRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  const hookOf = (c: Context<ConsoleEnv>) => {
    const hook = c.req.query("hook") ?? "";
    return hook && hook.length <= 200 ? hook : undefined;
  };

  app.get("/deliveries", async (c) => {
    const filter = filterOf(c);
    const filtered = Boolean(
      filter.status || filter.verb || filter.q || filter.tenantId || filter.from !== undefined ||
        filter.to !== undefined || filter.before !== undefined,
    );
    const [{ values, before }, stats, { values: communities }] = await Promise.all([
      deps.deliveries.page({ ...filter, limit: 50 }),
      deps.deliveries.stats(filter.hookId),
      deps.webhooks.communities.list({ limit: 100 }),
    ]);
    const utc = (ms: number | undefined) => ms === undefined ? "" : new Date(ms).toISOString().slice(0, 16);
    const hookId = filter.hookId;
    const older = before !== undefined ? `/deliveries?${new URLSearchParams(query({ ...filter, before }))}` : "";
    return html(
      c,
      <Layout title="Deliveries" {...layoutFrame(c, deps)} notice={noticeOf(c)}>
        <p>
          Every postback this console received, accepted or rejected with the reason, newest first{hookId
            ? (
              <>
                {" "}for webhook <a href={`/webhooks/${encodeURIComponent(hookId)}`}>{hookId}</a>
              </>
            )
            : ""}.{filtered ? " A filtered view does not update by itself." : ""}
        </p>
        <DeliveryChart stats={stats} />
        <form method="get" action="/deliveries" class="filters" role="search" aria-label="Filter deliveries">
          {hookId && <input type="hidden" name="hook" value={hookId} />}
          <label>
            Status{" "}
            <select name="status" id="filter-status">
              <option value="" selected={!filter.status}>any</option>
              <option value="accepted" selected={filter.status === "accepted"}>accepted</option>
              <option value="rejected" selected={filter.status === "rejected"}>rejected</option>
            </select>
          </label>{" "}
          <label>
            Community{" "}
            <select name="community" id="filter-community">
              <option value="" selected={!filter.tenantId}>any</option>
              {communities.map((co) => (
                <option value={co.tenantId} selected={co.tenantId === filter.tenantId} key={co.tenantId}>
                  {co.name}
                </option>
              ))}
            </select>
          </label>{" "}
          <label>
            Verb <input name="verb" id="filter-verb" value={filter.verb ?? ""} placeholder="jive:created" size={14} />
          </label>{" "}
          <label>
            From (UTC) <input type="datetime-local" name="from" id="filter-from" value={utc(filter.from)} />
          </label>{" "}
          <label>
            To (UTC) <input type="datetime-local" name="to" id="filter-to" value={utc(filter.to)} />
          </label>{" "}
          <label>
            Search <input type="search" name="q" id="filter-q" value={filter.q ?? ""} size={18} />
          </label>{" "}
          <button type="submit">Filter</button>
          {filtered && (
            <>
              {" "}
              <a href={hookId ? `/deliveries?hook=${encodeURIComponent(hookId)}` : "/deliveries"}>Clear</a>
            </>
          )}
        </form>
        {filtered
          ? <DeliveriesLive deliveries={values} hookId={hookId} live={false} />
          : (
            <Island name="DeliveriesLive" props={{ deliveries: values, hookId }}>
              <DeliveriesLive deliveries={values} hookId={hookId} />
            </Island>
          )}
        {older && (
          <nav class="pager" aria-label="Pages">
            <a href={older} id="older">Older deliveries</a>
          </nav>
        )}
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
}
