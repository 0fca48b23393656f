/**
 * The summary of the last 24 hours (chart, counts, success rate, handling
 * time, last delivery) as the live island `LiveChart`, rendered on the
 * server first: readable without script, kept current with it.
 *
 * @module
 */

import type { VNode } from "preact";
import type { DeliveryStats } from "../log/mod.ts";
import LiveChart from "../islands/LiveChart.tsx";
import { Island } from "./Island.tsx";

/** Props of {@linkcode DeliveryChart}. */
export interface DeliveryChartProps {
  /** The counts. */
  stats: DeliveryStats;
}

/** The chart and its one-line summary, updated as deliveries arrive. */
export function DeliveryChart({ stats }: DeliveryChartProps): VNode {
  return (
    <Island name="LiveChart" props={{ stats }}>
      <LiveChart stats={stats} />
    </Island>
  );
}
