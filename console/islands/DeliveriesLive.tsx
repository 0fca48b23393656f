/**
 * Island: the deliveries table. Rendered on the server with the newest
 * deliveries; in the browser it listens to the server-sent events of
 * `/deliveries/events` and, on each one, fetches the new rows with
 * Library B's `request` and prepends them, marking them `fresh`.
 *
 * @module
 */

import { useEffect, useRef, useState } from "preact/hooks";
import type { VNode } from "preact";
import { addClass, buildQuery, delClass, request } from "../../browser/mod.ts";

/** One delivery as the page shows it (no secrets). */
export interface DeliveryView {
  /** Place in the delivery sequence, which is commit order (1, 2, ...). */
  seq: number;
  /** Delivery id: its postback's id and its index there. */
  id: string;
  /** The webhook record id it was delivered to. */
  hookId: string;
  /** When it arrived (ISO 8601). */
  receivedAt: string;
  /** The activity's verb, e.g. `jive:created`. */
  verb: string;
  /** The activity's title or object summary. */
  title: string;
  /** The platform's webhook URL from the postback. */
  webhook: string;
  /** Our answer's HTTP status: 200 for an accepted delivery, else the rejection's. */
  status: number;
  /** Why a request was rejected (or that it was a duplicate). */
  reason?: string;
  /** The postback the delivery was part of. */
  postbackId?: string;
  /** The community's tenant id (of a rejected attempt: as its header claimed). */
  tenantId?: string;
  /** Sent again by the console's "Replay to receiver", not by the platform. */
  replay?: boolean;
}

/** Props of {@linkcode DeliveriesLive}. */
export interface DeliveriesLiveProps {
  /** Newest first. */
  deliveries: DeliveryView[];
  /** Only the deliveries of this webhook record, when set. */
  hookId?: string;
  /** Listen for new deliveries (the unfiltered first page); default `true`. */
  live?: boolean;
}

/** What the status column says of a row. */
export function statusText(d: DeliveryView): string {
  if (d.status === 200 && !d.reason) return d.replay ? "accepted (replay)" : "accepted";
  return `${d.status} ${d.reason ?? "rejected"}`;
}

/** Live table of deliveries. */
export default function DeliveriesLive(props: DeliveriesLiveProps): VNode {
  const [rows, setRows] = useState<DeliveryView[]>(props.deliveries);
  const [fresh, setFresh] = useState<string[]>([]);
  const status = useRef<HTMLSpanElement>(null);
  const newest = useRef<number>(props.deliveries[0]?.seq ?? 0);

  useEffect(() => {
    if (props.live === false) return;
    const query = props.hookId ? `?${buildQuery({ hook: props.hookId })}` : "";
    const source = new EventSource(`/deliveries/events${query}`);
    const load = () => {
      const q = buildQuery({ after: newest.current, hook: props.hookId });
      request(`/deliveries.json?${q}`, (err, response) => {
        const values = (response as { values?: unknown } | null)?.values;
        if (err || !Array.isArray(values)) return;
        const added = values as DeliveryView[];
        if (added.length === 0) return;
        newest.current = Math.max(newest.current, added[0].seq);
        setRows((old) => {
          const known = new Set(old.map((r) => r.id));
          return [...added.filter((r) => !known.has(r.id)), ...old].slice(
            0,
            200,
          );
        });
        setFresh(added.map((r) => r.id));
        if (added.length === 100) load(); // more arrived than one page
      });
    };
    source.addEventListener("open", () => {
      if (status.current) {
        addClass(status.current, "live");
        status.current.textContent = "live";
      }
    });
    source.addEventListener("error", () => {
      if (status.current) {
        delClass(status.current, "live");
        status.current.textContent = "reconnecting";
      }
    });
    source.addEventListener("delivery", load);
    return () => source.close();
  }, [props.hookId, props.live]);

  return (
    <div class="deliveries">
      {props.live !== false && (
        <p class="live-status" aria-live="polite">
          Updates: <span ref={status} id="live-status">off (needs JavaScript)</span>
        </p>
      )}
      <table id="deliveries-table" aria-live={props.live === false ? undefined : "polite"}>
        <thead>
          <tr>
            <th scope="col">Received</th>
            <th scope="col">Status</th>
            <th scope="col">Verb</th>
            <th scope="col">Title</th>
            <th scope="col">Webhook</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0
            ? (
              <tr class="empty">
                <td colSpan={5}>No deliveries yet.</td>
              </tr>
            )
            : rows.map((d) => (
              <tr
                key={d.id}
                id={`delivery-${d.id}`}
                class={fresh.includes(d.id) ? "delivery fresh" : "delivery"}
              >
                <td>
                  <time dateTime={d.receivedAt}>{d.receivedAt}</time>
                </td>
                <td class={d.status === 200 && !d.reason ? "status status-good" : "status status-bad"}>
                  {statusText(d)}
                </td>
                <td class="verb">{d.verb}</td>
                <td class="title">
                  <a href={`/deliveries/${encodeURIComponent(d.id)}`}>
                    {d.title || (d.status === 200 && !d.reason ? "(no title)" : "(details)")}
                  </a>
                </td>
                <td>
                  {d.hookId ? <a href={`/webhooks/${encodeURIComponent(d.hookId)}`}>{d.hookId}</a> : "—"}
                </td>
              </tr>
            ))}
        </tbody>
      </table>
    </div>
  );
}
