/**
 * Island: the per-hook (or whole log's) summary of the last 24 hours: a
 * chart of deliveries per hour, accepted (green) stacked under rejected
 * (red), drawn as inline SVG, the counts, the success rate, our handling
 * time, and when the last delivery came. It counts again, from
 * `/deliveries/stats.json`, each time a delivery of its hook arrives.
 *
 * @module
 */

import type { VNode } from "preact";
import { useEffect, useState } from "preact/hooks";
import { request } from "../../browser/mod.ts";
import { LocalTime } from "../components/LocalTime.tsx";
import type { DeliveryStats } from "../lib/deliveries.ts";
import { subscribeLive } from "./_live.ts";

/** Props of {@linkcode LiveChart}. */
export interface LiveChartProps {
  /** The counts (with the hook they are of). */
  stats: DeliveryStats;
  /** Count again as deliveries arrive; default `true`. */
  live?: boolean;
}

/** Least time between two counts. */
const COUNT_EVERY_MS = 2_000;

function ms(value: number): string {
  return value < 10 ? `${value.toFixed(1)} ms` : `${Math.round(value)} ms`;
}

/** The chart, its summary and the hook's health, as they are now. */
export function ChartFigure({ stats }: { stats: DeliveryStats }): VNode {
  const W = 10;
  const H = 48;
  const peak = Math.max(1, ...stats.hours.map((h) => h.accepted + h.rejected));
  const summary = `Last 24 hours: ${stats.accepted} accepted, ${stats.rejected} rejected${
    stats.capped ? " (counted up to the newest 2,000)" : ""
  }.`;
  const total = stats.accepted + stats.rejected;
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
            {" "}Last: <LocalTime iso={stats.last.receivedAt} />.
          </>
        )}
      </figcaption>
      <p class="hint" id="delivery-health">
        {total === 0
          ? "Success rate: no deliveries in the last 24 hours."
          : `Success rate: ${(Math.floor((stats.accepted / total) * 1000) / 10).toString()}% accepted.`}
        {stats.handling
          ? ` Our handling time: p50 ${ms(stats.handling.p50)}, p99 ${
            ms(stats.handling.p99)
          } (of ${stats.handling.count} postback${stats.handling.count === 1 ? "" : "s"}).`
          : ""}
      </p>
    </figure>
  );
}

/** The live summary. */
export default function LiveChart(props: LiveChartProps): VNode {
  const [stats, setStats] = useState<DeliveryStats>(props.stats);
  const hookId = props.stats.hookId;
  useEffect(() => {
    if (props.live === false) return;
    // Counting reads up to 2,000 entries: at most once per COUNT_EVERY_MS, however fast deliveries come.
    let timer: ReturnType<typeof setTimeout> | undefined;
    let last = 0;
    let settle: ReturnType<typeof setTimeout> | undefined;
    const count = () => {
      timer = undefined;
      last = Date.now();
      const q = hookId ? `?hook=${encodeURIComponent(hookId)}` : "";
      request(`/deliveries/stats.json${q}`, (err, response) => {
        if (!err && response && Array.isArray((response as DeliveryStats).hours)) setStats(response as DeliveryStats);
      });
    };
    const soon = () => {
      timer ??= setTimeout(count, Math.max(0, last + COUNT_EVERY_MS - Date.now()));
    };
    const unsubscribe = subscribeLive({
      onDelivery: (d) => {
        if (d && hookId && d.hookId !== hookId) return;
        soon();
        // The handling time of a postback is recorded just after its delivery: count once more when a burst settles.
        if (d) {
          clearTimeout(settle);
          settle = setTimeout(soon, 1_500);
        }
      },
      onState: () => {},
    });
    return () => {
      clearTimeout(timer);
      clearTimeout(settle);
      unsubscribe();
    };
  }, [hookId, props.live]);
  return <ChartFigure stats={stats} />;
}
