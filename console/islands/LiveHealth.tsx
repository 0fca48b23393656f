/**
 * Island: one hook's health in the webhooks list (its last delivery, the
 * share rejected in 24 hours), read again from
 * `/webhooks/{id}/health.json` when a delivery of the hook arrives, so the
 * list stays current as a portal's does.
 *
 * @module
 */

import type { VNode } from "preact";
import { useEffect, useState } from "preact/hooks";
import { request } from "../../browser/mod.ts";
import { HealthText, type HookHealth } from "../components/HookHealth.tsx";
import { subscribeLive } from "./_live.ts";

/** Props of {@linkcode LiveHealth}. */
export interface LiveHealthProps {
  /** The hook's record id. */
  hookId: string;
  /** Its health when the page was rendered. */
  health?: HookHealth;
}

/** Least time between two reads of one hook's health. */
const READ_EVERY_MS = 2_000;

/** The live health cell. */
export default function LiveHealth(props: LiveHealthProps): VNode {
  const [health, setHealth] = useState<HookHealth | undefined>(props.health);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let last = 0;
    const read = () => {
      timer = undefined;
      last = Date.now();
      request(`/webhooks/${encodeURIComponent(props.hookId)}/health.json`, (err, response) => {
        const value = response as HookHealth | null;
        if (!err && value && typeof value.total === "number") setHealth(value);
      });
    };
    const unsubscribe = subscribeLive({
      onDelivery: (d) => {
        if (d && d.hookId !== props.hookId) return;
        timer ??= setTimeout(read, Math.max(0, last + READ_EVERY_MS - Date.now()));
      },
      onState: () => {},
    });
    return () => {
      clearTimeout(timer);
      unsubscribe();
    };
  }, [props.hookId]);
  return <HealthText health={health} />;
}
