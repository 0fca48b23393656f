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
}

/** Props of {@linkcode DeliveriesLive}. */
export interface DeliveriesLiveProps {
  /** Newest first. */
  deliveries: DeliveryView[];
  /** Only the deliveries of this webhook record, when set. */
  hookId?: string;
}

/** Live table of deliveries. */
export default function DeliveriesLive(props: DeliveriesLiveProps): VNode {
  const [rows, setRows] = useState<DeliveryView[]>(props.deliveries);
  const [fresh, setFresh] = useState<string[]>([]);
  const status = useRef<HTMLSpanElement>(null);
  const newest = useRef<number>(props.deliveries[0]?.seq ?? 0);

  useEffect(() => {
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
  }, [props.hookId]);

  return (
    <div class="deliveries">
      <p class="live-status">
        Updates: <span ref={status} id="live-status">off</span>
      </p>
      <table id="deliveries-table">
        <thead>
          <tr>
            <th>Received</th>
            <th>Verb</th>
            <th>Title</th>
            <th>Webhook</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0
            ? (
              <tr class="empty">
                <td colSpan={4}>No deliveries yet.</td>
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
                <td class="verb">{d.verb}</td>
                <td class="title">
                  <a href={`/deliveries/${encodeURIComponent(d.id)}`}>
                    {d.title || "(no title)"}
                  </a>
                </td>
                <td>
                  <a href={`/webhooks/${encodeURIComponent(d.hookId)}`}>
                    {d.hookId}
                  </a>
                </td>
              </tr>
            ))}
        </tbody>
      </table>
    </div>
  );
}
