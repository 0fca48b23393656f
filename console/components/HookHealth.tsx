/**
 * A webhook's health for the webhooks list, as a portal shows it: when its
 * last delivery came, and the share of its recent deliveries rejected.
 *
 * @module
 */

import type { VNode } from "preact";
import type { DeliveryView } from "../log/mod.ts";
import { LocalTime } from "./LocalTime.tsx";

/** Deliveries of one hook that the health reads at most (the newest). */
export const HEALTH_SAMPLE = 100;

/** One hook's health. */
export interface HookHealth {
  /** When its last delivery (or refused request) came, ISO 8601. */
  last?: string;
  /** Its entries of the last 24 hours among the newest {@linkcode HEALTH_SAMPLE}. */
  total: number;
  /** How many of those were rejected. */
  rejected: number;
  /** Set when more than {@linkcode HEALTH_SAMPLE} came in the last 24 hours: `total` is then the newest ones only. */
  more?: true;
}

/** Where the health is read from: the delivery store's `list`. */
export interface HealthSource {
  /** The newest entries of one hook. */
  list(options: { hookId: string; limit: number }): Promise<DeliveryView[]>;
}

/**
 * The health of each hook, from its newest deliveries.
 *
 * @param source the delivery store
 * @param hookIds the hooks
 * @param now the present (ms since the epoch)
 * @returns the health by hook id
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hookHealth } from "./HookHealth.tsx";
 * const now = Date.parse("2026-11-25T12:00:00Z");
 * const row = (status: number, receivedAt: string) => ({ status, receivedAt }) as never;
 * const source = {
 *   list: () => Promise.resolve([row(401, "2026-11-25T11:00:00Z"), row(200, "2026-11-25T10:00:00Z")]),
 * };
 * const health = await hookHealth(source, ["h1"], now);
 * assert.deepEqual(health.get("h1"), { last: "2026-11-25T11:00:00Z", total: 2, rejected: 1 });
 * ```
 */
export async function hookHealth(
  source: HealthSource,
  hookIds: string[],
  now: number = Date.now(),
): Promise<Map<string, HookHealth>> {
  const out = new Map<string, HookHealth>();
  await Promise.all(hookIds.map(async (hookId) => {
    // One more than the sample: whether the day held more than the sample is known, not guessed.
    const rows = await source.list({ hookId, limit: HEALTH_SAMPLE + 1 });
    const day = rows.filter((r) => Date.parse(r.receivedAt) >= now - 24 * 3_600_000);
    const recent = day.slice(0, HEALTH_SAMPLE);
    out.set(hookId, {
      ...(rows[0] ? { last: rows[0].receivedAt } : {}),
      total: recent.length,
      rejected: recent.filter((r) => r.status !== 200 || r.reason).length,
      ...(day.length > HEALTH_SAMPLE ? { more: true as const } : {}),
    });
  }));
  return out;
}

/** The health cell's content. */
export function HealthText({ health }: { health?: HookHealth }): VNode {
  if (!health?.last) return <span class="state-absent">no deliveries yet</span>;
  const share = health.total ? Math.round((health.rejected / health.total) * 100) : 0;
  return (
    <span class="health">
      Last: <LocalTime iso={health.last} />.{" "}
      <span class={health.rejected ? "status-bad" : undefined}>
        {!health.total
          ? "none in 24 h"
          : health.more
          ? `${share}% rejected of the latest ${health.total} (more in 24 h)`
          : `${share}% rejected of ${health.total} in 24 h`}
      </span>
    </span>
  );
}
