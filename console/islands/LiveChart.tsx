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
import type { DeliveryStats } from "../log/mod.ts";
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

/** Least number of hours the chart shows: a burst of the last hour still has its hours around it. */
const MIN_HOURS = 6;

/** "13:00 UTC" for an hour's start. */
function hourOf(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}

/**
 * The hours the chart draws: from the first of the 24 that has deliveries
 * (at least the last {@linkcode MIN_HOURS}) to the present one, so the bars
 * are drawn at a readable scale instead of crowded at the right of 24.
 */
function shownHours(hours: DeliveryStats["hours"]): DeliveryStats["hours"] {
  const first = hours.findIndex((h) => h.accepted + h.rejected > 0);
  if (first < 0) return [];
  return hours.slice(Math.max(0, Math.min(first, hours.length - MIN_HOURS)));
}

/** The chart, its summary and the hook's health, as they are now. */
export function ChartFigure({ stats }: { stats: DeliveryStats }): VNode {
  const W = 480;
  const H = 64;
  const AXIS = 16;
  const shown = shownHours(stats.hours);
  const bar = shown.length ? W / shown.length : W;
  // Hour labels about 44 units apart at least, the last hour always labelled.
  const every = Math.max(1, Math.ceil(44 / bar));
  const peakHour = shown.reduce((a, h) => h.accepted + h.rejected > a.accepted + a.rejected ? h : a, shown[0]);
  const peak = Math.max(1, ...shown.map((h) => h.accepted + h.rejected));
  const summary = `Last 24 hours: ${stats.accepted} accepted, ${stats.rejected} rejected${
    stats.capped ? " (counted up to the newest 2,000)" : ""
  }.`;
  const total = stats.accepted + stats.rejected;
  const described = shown.length
    ? `Deliveries per hour from ${hourOf(shown[0].start)} to ${hourOf(shown[shown.length - 1].start)}: peak ${
      peakHour.accepted + peakHour.rejected
    } at ${hourOf(peakHour.start)} (${peakHour.accepted} accepted, ${peakHour.rejected} rejected). ${summary}`
    : summary;
  return (
    <figure class="chart" id="delivery-chart">
      {shown.length > 0 && (
        <svg
          role="img"
          aria-label={described}
          viewBox={`0 0 ${W} ${H + AXIS}`}
          width={W}
          height={H + AXIS}
        >
          <text x={2} y={10} class="peak">{`${peak} per hour`}</text>
          <line x1={0} x2={W} y1={H + 0.5} y2={H + 0.5} stroke="#8b95a5" />
          {shown.map((h, i) => {
            const accepted = (h.accepted / peak) * (H - 14);
            const rejected = (h.rejected / peak) * (H - 14);
            const labelled = (shown.length - 1 - i) % every === 0;
            return (
              <g key={h.start}>
                <title>{`${hourOf(h.start)}: ${h.accepted} accepted, ${h.rejected} rejected`}</title>
                <rect x={i * bar + 2} y={H - accepted} width={bar - 4} height={accepted} fill="#067647" />
                <rect x={i * bar + 2} y={H - accepted - rejected} width={bar - 4} height={rejected} fill="#b42318" />
                {labelled && (
                  <text x={i * bar + bar / 2} y={H + AXIS - 3} text-anchor="middle">
                    {new Date(h.start).toISOString().slice(11, 16)}
                  </text>
                )}
              </g>
            );
          })}
        </svg>
      )}
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
