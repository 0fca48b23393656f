/**
 * A small chart of deliveries per hour over the last 24 hours, accepted
 * (green) stacked under rejected (red), drawn as inline SVG on the server:
 * no script, readable by screen readers through its label and the summary
 * line beside it.
 *
 * @module
 */

import type { VNode } from "preact";
import type { DeliveryStats } from "../lib/deliveries.ts";

/** Props of {@linkcode DeliveryChart}. */
export interface DeliveryChartProps {
  /** The counts. */
  stats: DeliveryStats;
}

/** The chart and its one-line summary. */
export function DeliveryChart({ stats }: DeliveryChartProps): VNode {
  const W = 10;
  const H = 48;
  const peak = Math.max(1, ...stats.hours.map((h) => h.accepted + h.rejected));
  const summary = `Last 24 hours: ${stats.accepted} accepted, ${stats.rejected} rejected${
    stats.capped ? " (counted up to the newest 2,000)" : ""
  }.`;
  return (
    <figure class="chart" id="delivery-chart">
      <svg
        role="img"
        aria-label={`Deliveries per hour over the last 24 hours. ${summary}`}
        viewBox={`0 0 ${stats.hours.length * W} ${H}`}
        width={stats.hours.length * W}
        height={H}
      >
        {stats.hours.map((h, i) => {
          const accepted = (h.accepted / peak) * H;
          const rejected = (h.rejected / peak) * H;
          return (
            <g key={h.start}>
              <title>
                {`${new Date(h.start).toISOString().slice(11, 16)} UTC: ${h.accepted} accepted, ${h.rejected} rejected`}
              </title>
              <rect x={i * W + 1} y={H - accepted} width={W - 2} height={accepted} fill="#067647" />
              <rect x={i * W + 1} y={H - accepted - rejected} width={W - 2} height={rejected} fill="#b42318" />
            </g>
          );
        })}
      </svg>
      <figcaption id="delivery-summary">
        {summary}
        {stats.last && (
          <>
            {" "}Last: <time dateTime={stats.last.receivedAt}>{stats.last.receivedAt}</time>.
          </>
        )}
      </figcaption>
    </figure>
  );
}
