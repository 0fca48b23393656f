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
import { fieldError, Layout } from "../components/Layout.tsx";
import DeliveriesLive, { LIVE_LOOK } from "../islands/DeliveriesLive.tsx";
import { type ConsoleEnv, cookieName, type Deps, html, layoutFrame, noticeOf, SESSION_COOKIE } from "../lib/context.ts";
import { ANSWERS, filterOf, KNOWN_VERBS, pageUrl, utcText } from "./_delivery_filter.ts";
import { allCommunities, allHooks } from "./_webhook_parts.tsx";
import { hookNames } from "./_hook_names.ts";
import { LiveStreamSlots } from "../lib/live_streams.ts";
import { liveStream } from "./_delivery_stream.ts";

/** The longest webhook id a filter takes (the page's filter field too). */
const MAX_HOOK = 200;

/** Adds the delivery routes to `app`. */
export function deliveryRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  const slots = new LiveStreamSlots(deps.liveStreams);
  const hookOf = (c: Context<ConsoleEnv>) => {
    const hook = c.req.query("hook") ?? "";
    return hook && hook.length <= MAX_HOOK ? hook : undefined;
  };
  // The JSON and event-stream views have no notice to say a filter was ignored (as the page does): a hook id longer
  // than any filter takes is refused, rather than answered with every hook's deliveries.
  const hookTooLong = (c: Context<ConsoleEnv>) =>
    (c.req.query("hook")?.length ?? 0) > MAX_HOOK
      ? c.json({ error: `hook: a webhook id of at most ${MAX_HOOK} characters` }, 400)
      : null;

  app.get("/deliveries", async (c) => {
    const { filter, problems, faults } = filterOf(c);
    const marks = (name: string) => fieldError(faults.has(name));
    const { before: _b, after: _a, ...criteria } = filter;
    const paged = filter.before !== undefined || filter.after !== undefined;
    const narrowed = Object.entries(criteria).some(([k, v]) => k !== "hookId" && v !== undefined);
    // Every community and hook in the filters (not the first 100: the rest could not be picked, nor named below).
    const [found, stats, communities, hooks, recent] = await Promise.all([
      deps.deliveries.page({ ...filter, limit: 50 }),
      deps.deliveries.stats(filter.hookId),
      allCommunities(deps.webhooks, filter.tenantId),
      allHooks(deps.webhooks, filter.hookId),
      deps.deliveries.list({ limit: 200 }),
    ]);
    // A newer page with nothing newer beyond it is the first page: show that one, whole and live, when it holds
    // every row of the page past the cursor (those stored between the two reads may have pushed them off it: then
    // the page past the cursor is shown, with a Newer link past it, else a walk Newer never showed them).
    const top = filter.after !== undefined && found.after === undefined
      ? await deps.deliveries.page({ ...criteria, limit: 50 })
      : null;
    const atStart = top !== null && found.values.every((d) => top.values.some((v) => v.id === d.id));
    const { values, before, after } = atStart ? top : top ? { ...found, after: found.values[0].seq } : found;
    const live = !narrowed && (!paged || atStart);
    const labels = await deps.labels.many([...new Set([...hooks.map((h) => h.id), ...values.map((d) => d.hookId)])]);
    // Every hook by a name (its own, else its events and community); the id is the row's second line.
    const names = {
      ...Object.fromEntries([...labels].filter(([, l]) => l.name).map(([id, l]) => [id, l.name])),
      ...hookNames(hooks, labels, communities),
    };
    const utc = (ms: number | undefined) => ms === undefined ? "" : utcText(ms);
    const hookId = filter.hookId;
    const verbs = [...new Set([...KNOWN_VERBS, ...recent.map((d) => d.verb).filter(Boolean)])].sort();
    const statusValue = filter.status === undefined ? "" : String(filter.status);
    const clear = hookId ? `/deliveries?hook=${encodeURIComponent(hookId)}` : "/deliveries";
    // A hook or community the filter names that is not known here: said, and shown in its dropdown (its deliveries,
    // if the log holds any, are still listed: a hook unregistered since, a community removed).
    const unknownHook = hookId !== undefined && !hooks.some((h) => h.id === hookId);
    const tenantId = filter.tenantId;
    const unknownCommunity = tenantId !== undefined && !communities.some((co) => co.tenantId === tenantId);
    const errors = [
      problems.length ? `Ignored what could not be read: ${problems.join("; ")}.` : "",
      unknownHook && values.length === 0 ? `No webhook has the id '${hookId}', and no delivery names it.` : "",
      unknownCommunity && values.length === 0 ? `No community has the tenant id '${tenantId}'.` : "",
    ].filter(Boolean);
    const emptyView = narrowed
      ? { empty: "No delivery matches these filters.", emptyLink: { href: clear, label: "Clear the filters" } }
      : hookId
      ? {
        empty: unknownHook ? "No delivery of this webhook." : "No delivery of this webhook yet.",
        emptyLink: { href: "/deliveries", label: "Show all deliveries" },
      }
      : paged
      ? { empty: "No deliveries on this page." }
      : firstSteps(hooks.length > 0, deps.sandbox === true);
    const pages = [
      (paged && !atStart) && { href: pageUrl(criteria), id: "first-page", label: "Newest", rel: "first" },
      after !== undefined &&
      { href: pageUrl({ ...criteria, after }), id: "newer", label: "Newer deliveries", rel: "prev" },
      before !== undefined &&
      { href: pageUrl({ ...criteria, before }), id: "older", label: "Older deliveries", rel: "next" },
    ].filter((p) => p !== false);
    return html(
      c,
      <Layout
        title="Deliveries"
        {...layoutFrame(c, deps)}
        notice={noticeOf(c)}
        error={errors.length ? errors.join(" ") : undefined}
      >
        <p>
          Every postback this console received, accepted or rejected with the reason, newest first{hookId
            ? (
              <>
                {" "}for webhook <a href={`/webhooks/${encodeURIComponent(hookId)}`}>{hookId}</a>
              </>
            )
            : ""}.{live ? "" : " This view does not update by itself."}
        </p>
        <DeliveryChart stats={stats} />
        <form method="get" action="/deliveries" class="filters" role="search" aria-label="Filter deliveries">
          <label>
            Webhook{" "}
            <select name="hook" id="filter-hook">
              <option value="" selected={!hookId}>any</option>
              {unknownHook && <option value={hookId} selected>{`${hookId} (not registered)`}</option>}
              {hooks.map((h) => (
                <option value={h.id} selected={h.id === hookId} key={h.id}>
                  {labels.get(h.id)?.name || h.id}
                </option>
              ))}
            </select>
          </label>{" "}
          <label>
            Status{" "}
            <select name="status" id="filter-status" {...marks("status")}>
              <option value="" selected={!statusValue}>any</option>
              <option value="accepted" selected={statusValue === "accepted"}>accepted</option>
              <option value="rejected" selected={statusValue === "rejected"}>rejected (any answer)</option>
              {ANSWERS.map(([code, label]) => (
                <option value={String(code)} selected={statusValue === String(code)} key={code}>{label}</option>
              ))}
            </select>
          </label>{" "}
          <label>
            Community{" "}
            <select name="community" id="filter-community">
              <option value="" selected={!filter.tenantId}>any</option>
              {unknownCommunity && <option value={tenantId} selected>{`${tenantId} (not a community here)`}</option>}
              {communities.map((co) => (
                <option value={co.tenantId} selected={co.tenantId === filter.tenantId} key={co.tenantId}>
                  {co.name}
                </option>
              ))}
            </select>
          </label>{" "}
          <label>
            Verb (or its start){" "}
            <input
              name="verb"
              id="filter-verb"
              value={faults.get("verb") ?? filter.verb ?? ""}
              {...marks("verb")}
              placeholder="jive:created"
              size={14}
              list="known-verbs"
              autocomplete="off"
            />
          </label>
          <datalist id="known-verbs">
            {verbs.map((v) => <option value={v} key={v} />)}
          </datalist>{" "}
          <label>
            From (UTC){" "}
            <input type="datetime-local" name="from" id="filter-from" value={utc(filter.from)} {...marks("from")} />
          </label>{" "}
          <label>
            To (UTC) <input type="datetime-local" name="to" id="filter-to" value={utc(filter.to)} {...marks("to")} />
          </label>{" "}
          <label>
            Search{" "}
            <input
              type="search"
              name="q"
              id="filter-q"
              value={faults.get("q") ?? filter.q ?? ""}
              size={18}
              {...marks("q")}
            />
          </label>{" "}
          <button type="submit">Filter</button>
          {(narrowed || problems.length > 0) && (
            <>
              {" "}
              <a href={clear}>Clear</a>
            </>
          )}
        </form>
        {live
          ? (
            <Island name="DeliveriesLive" props={{ deliveries: values, hookId, names, ...emptyView }}>
              <DeliveriesLive deliveries={values} hookId={hookId} names={names} {...emptyView} />
            </Island>
          )
          : (
            <DeliveriesLive
              deliveries={values}
              hookId={hookId}
              names={names}
              live={false}
              {...emptyView}
            />
          )}
        {pages.length > 0 && (
          <nav class="pager" aria-label="Pages">
            {pages.map((p) => <a href={p.href} id={p.id} rel={p.rel} key={p.id}>{p.label}</a>)}
          </nav>
        )}
      </Layout>,
    );
  });

  app.get("/deliveries/stats.json", async (c) => {
    const refused = hookTooLong(c);
    if (refused) return refused;
    return c.json(await deps.deliveries.stats(hookOf(c)));
  });

  app.get("/deliveries.json", async (c) => {
    const refused = hookTooLong(c);
    if (refused) return refused;
    const query = Number(c.req.query("after") ?? "");
    // A cursor is a place in the log; anything else (1.5, Infinity) reads the newest, as no cursor does.
    const after = Number.isSafeInteger(query) && query > 0 ? query : 0;
    const since = Number(c.req.query("since") ?? "");
    if (Number.isSafeInteger(since) && since > 0) {
      // The live table: the newest after the settle window below the newest it has (a late commit lands there).
      const values = await deps.deliveries.list({
        hookId: hookOf(c),
        after: deps.deliveries.settleFrom(since),
        limit: LIVE_LOOK,
      });
      return c.json({ values });
    }
    const values = await deps.deliveries.list({
      hookId: hookOf(c),
      after: after > 0 ? after : undefined,
      limit: 100,
      // After a known delivery: the next ones in order, so paging on skips none.
      forward: after > 0,
    });
    return c.json({ values: after > 0 ? values.reverse() : values });
  });

  app.get("/deliveries/events", (c) => {
    const refused = hookTooLong(c);
    if (refused) return refused;
    // HEAD (served by this GET route) gets the headers and no stream: nobody would read it, so it would never end.
    if (c.req.method === "HEAD") {
      return new Response(null, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
    }
    // A client reconnecting names the last event's id (the highest number sent): the stream goes on from there.
    const lastEventId = c.req.header("last-event-id") ?? "";
    const resumeAfter = /^\d{1,16}$/.test(lastEventId) ? Number(lastEventId) : undefined;
    if (lastEventId && (resumeAfter === undefined || !Number.isSafeInteger(resumeAfter))) {
      return c.json({ error: "Last-Event-ID: the id of an event this stream sent (a delivery number)" }, 400);
    }
    const hookId = hookOf(c);
    const sessionId = getCookie(c, cookieName(c, deps, SESSION_COOKIE));
    // A place among the streams open now (a few per session, a total per console), given back when the stream ends.
    const place = slots.take(sessionId ?? "");
    if (place instanceof Response) return place;
    return streamSSE(c, async (stream) => {
      try {
        await liveStream(stream, deps, hookId, sessionId, resumeAfter);
      } finally {
        place();
      }
    });
  });
}

/** What the empty log says: the step that fills it, and a link to that. */
function firstSteps(
  hooks: boolean,
  sandbox: boolean,
): { empty: string; emptyLink: { href: string; label: string; id: string } } {
  if (!hooks) {
    return {
      empty: "No deliveries yet: register a webhook, and the postbacks it receives show here as they arrive.",
      emptyLink: { href: "/webhooks/new", label: "Register a webhook", id: "first-step" },
    };
  }
  return {
    empty: "No deliveries yet: postbacks show here as they arrive. A webhook's page sends one with Send test event" +
      (sandbox ? "; the sandbox page triggers events too." : "."),
    emptyLink: sandbox
      ? { href: "/sandbox", label: "Trigger an event", id: "first-step" }
      : { href: "/webhooks", label: "Your webhooks", id: "first-step" },
  };
}
