/**
 * Island: the deliveries table. Rendered on the server with the newest
 * deliveries; in the browser it hears of new ones through the event stream
 * the tabs share (`_live.ts`) and fetches them with Library B's `request`,
 * prepending them marked `fresh`. At narrow widths each row shows as a card
 * of labelled values (the labels are the cells' `data-label`).
 *
 * @module
 */

import { useEffect, useRef, useState } from "preact/hooks";
import type { VNode } from "preact";
import { buildQuery, request } from "../../browser/mod.ts";
import { LocalTime } from "../components/LocalTime.tsx";
import { cutText, wellFormed } from "../components/text.ts";
import { type LiveState, subscribeLive } from "./_live.ts";
import { useNews } from "./_news.ts";
import type { DeliveryView } from "../log/mod.ts";

export type { DeliveryView };

/** Props of {@linkcode DeliveriesLive}. */
export interface DeliveriesLiveProps {
  /** Newest first. */
  deliveries: DeliveryView[];
  /** Only the deliveries of this webhook record, when set. */
  hookId?: string;
  /** Listen for new deliveries (the unfiltered first page); default `true`. */
  live?: boolean;
  /** What the table says when it has no row; default "No deliveries yet.". */
  empty?: string;
  /** A link after that message (e.g. one that clears the filters, its id by default `clear-filters`). */
  emptyLink?: { href: string; label: string; id?: string };
  /** Most rows shown, the newest kept as more arrive; default 200. */
  max?: number;
  /** Names of webhooks by record id, shown with their ids as a second line. */
  names?: Record<string, string>;
}

/** What the status column says of a row. */
export function statusText(d: DeliveryView): string {
  if (d.status === 200 && !d.reason) return d.replay ? "accepted (replay)" : "accepted";
  return `${d.status} ${wellFormed(d.reason ?? "rejected")}`;
}

/** Most deliveries one look of the live table reads (`/deliveries.json?since=`), the newest. */
export const LIVE_LOOK = 100;

/** Longest wait for one look: one that never ends (a connection gone half-open) would hold back every look after. */
const LOOK_TIMEOUT_MS = 10_000;
/** Wait before a look that failed is tried again (once: the stream, or the polls, bring the next). */
const LOOK_RETRY_MS = 2_000;

/** Longest title a row shows, in graphemes. */
export const TITLE_GRAPHEMES = 120;

const STATE_TEXT: Record<LiveState, string> = {
  connecting: "connecting",
  live: "live",
  polling: "checking every few seconds",
  ended: "stopped: your session ended",
};

/** Live table of deliveries. */
export default function DeliveriesLive(props: DeliveriesLiveProps): VNode {
  const [rows, setRows] = useState<DeliveryView[]>(props.deliveries);
  const [fresh, setFresh] = useState<string[]>([]);
  const [state, setState] = useState<LiveState | null>(null);
  const newest = useRef<number>(props.deliveries[0]?.seq ?? 0);
  const rowIds = useRef<string[]>(props.deliveries.map((r) => r.id));
  const [news, tell] = useNews();
  // The status is live once the view first settled: its "connecting", then "live", on every load went unasked. It
  // speaks when it changes after: falling back to polling, stopping.
  const [spoken, setSpoken] = useState(false);
  useEffect(() => {
    if (state === "live" || state === "polling") setSpoken(true);
  }, [state]);

  useEffect(() => {
    if (props.live === false) return;
    let busy = false;
    let again = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let retried = false;
    const load = () => {
      if (busy) return void (again = true);
      clearTimeout(retry);
      busy = true;
      // The newest since a little below the newest shown: a commit of another process may land below it.
      const q = buildQuery(newest.current > 0 ? { since: newest.current, hook: props.hookId } : { hook: props.hookId });
      request(`/deliveries.json?${q}`, (err, response) => {
        busy = false;
        const values = (response as { values?: unknown } | null)?.values;
        const got = !err && Array.isArray(values) ? values as DeliveryView[] : [];
        const known = new Set(rowIds.current);
        const added = got.filter((r) => !known.has(r.id));
        // A full look that reaches no lower than the newest shown may have left deliveries out below it: the rows
        // shown before would follow as if none came between, so the table keeps the newest, read in full.
        const hole = got.length >= LIVE_LOOK && Math.min(...got.map((r) => r.seq)) > newest.current;
        if (added.length > 0) {
          newest.current = Math.max(newest.current, ...added.map((r) => r.seq));
          setRows((old) => {
            const next = [...added, ...(hole ? [] : old)].sort((a, b) => b.seq - a.seq).slice(0, props.max ?? 200);
            rowIds.current = next.map((r) => r.id);
            return next;
          });
          setFresh(added.map((r) => r.id));
          tell(added.length);
        }
        if (again) { // more arrived while this one was read
          again = false;
          load();
        } else if (err && !retried) { // what this look was for would wait for the next delivery
          retried = true;
          retry = setTimeout(load, LOOK_RETRY_MS);
        } else if (!err) retried = false;
      }, { props: { timeout: LOOK_TIMEOUT_MS } });
    };
    const unsubscribe = subscribeLive({
      onDelivery: (d) => {
        if (!d || !props.hookId || d.hookId === props.hookId) load();
      },
      onState: setState,
    });
    return () => {
      clearTimeout(retry);
      unsubscribe();
    };
  }, [props.hookId, props.live]);

  return (
    <div class="deliveries">
      {props.live !== false && (
        <p class="live-status" aria-live={spoken ? "polite" : undefined}>
          Updates:{" "}
          <span id="live-status" class={state === "live" ? "live" : undefined} data-state={state ?? undefined}>
            {state ? STATE_TEXT[state] : "off (needs JavaScript)"}
          </span>
          {state === "ended" && (
            <>
              {". "}
              <a
                href={`/signin?${new URLSearchParams({ returnTo: location.pathname + location.search })}`}
                id="live-signin"
              >
                Sign in again
              </a>{" "}
              to see new deliveries.
            </>
          )}
        </p>
      )}
      {
        /* In the page as sent, empty: a region added later is not read out. The table is none (_news.ts). */
        props.live !== false && <p class="visually-hidden" aria-live="polite" id="live-news">{news}</p>
      }
      <table id="deliveries-table" class="cards">
        <thead>
          <tr>
            <th scope="col">Received</th>
            <th scope="col">Status</th>
            <th scope="col">Verb</th>
            <th scope="col">Title</th>
            {!props.hookId && <th scope="col">Webhook</th>}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0
            ? (
              <tr class="empty">
                <td colSpan={props.hookId ? 4 : 5} id="deliveries-empty">
                  {props.empty ?? "No deliveries yet."}
                  {props.emptyLink && (
                    <>
                      {" "}
                      <a href={props.emptyLink.href} id={props.emptyLink.id ?? "clear-filters"}>
                        {props.emptyLink.label}
                      </a>
                    </>
                  )}
                </td>
              </tr>
            )
            : rows.map((d) => (
              <tr
                key={d.id}
                id={`delivery-${d.id}`}
                class={fresh.includes(d.id) ? "delivery fresh" : "delivery"}
              >
                <td data-label="Received">
                  <LocalTime iso={d.receivedAt} />
                </td>
                <td
                  data-label="Status"
                  class={d.status === 200 && !d.reason ? "status status-good" : "status status-bad"}
                >
                  <span class="reason" title={statusText(d)}>{statusText(d)}</span>
                </td>
                <td data-label="Verb" class="verb">{wellFormed(d.verb) || "—"}</td>
                <td data-label="Title" class="title">
                  <a href={`/deliveries/${encodeURIComponent(d.id)}`}>
                    {cutText(d.title, TITLE_GRAPHEMES) || (d.status === 200 && !d.reason ? "(no title)" : "(details)")}
                  </a>
                </td>
                {!props.hookId && (
                  <td data-label="Webhook" class={props.names?.[d.hookId] ? "hook-name" : "id"}>
                    {d.hookId
                      ? <a href={`/webhooks/${encodeURIComponent(d.hookId)}`}>{props.names?.[d.hookId] || d.hookId}</a>
                      : "—"}
                    {d.hookId && props.names?.[d.hookId] && <small class="id">{d.hookId}</small>}
                  </td>
                )}
              </tr>
            ))}
        </tbody>
      </table>
    </div>
  );
}
