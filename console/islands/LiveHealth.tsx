/**
 * Island: one hook's health in the webhooks list (its last delivery, the
 * share rejected in 24 hours), read again when a delivery of the hook
 * arrives, so the list stays current as a portal's does. The cells of a page
 * read together, one `/webhooks/health.json?id=...` request for all the
 * hooks a look concerns, not one request per hook.
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

/** Least time between two reads of the list's health. */
const READ_EVERY_MS = 2_000;
/** Hooks read in one request at most (the route's limit). */
const PER_READ = 200;

// Every cell of the page shares one reader: a delivery of a hook marks its cell due, a look again (after a poll
// tick or a reconnect) marks them all, and one request reads the health of all those due, at most every 2 s.
const cells = new Map<string, Set<(health: HookHealth) => void>>();
const due = new Set<string>();
let timer: ReturnType<typeof setTimeout> | undefined;
let last = 0;
let unsubscribe: (() => void) | null = null;

function mark(hookId: string | null): void {
  if (hookId === null) { for (const id of cells.keys()) due.add(id); }
  else if (cells.has(hookId)) due.add(hookId);
  if (due.size > 0) timer ??= setTimeout(read, Math.max(0, last + READ_EVERY_MS - Date.now()));
}

function read(): void {
  timer = undefined;
  last = Date.now();
  const ids = [...due].slice(0, PER_READ);
  for (const id of ids) due.delete(id);
  if (due.size > 0) timer = setTimeout(read, READ_EVERY_MS); // the rest at the next read
  const query = ids.map((id) => `id=${encodeURIComponent(id)}`).join("&");
  request(`/webhooks/health.json?${query}`, (err, response) => {
    if (err || typeof response !== "object" || response === null) return;
    for (const [id, value] of Object.entries(response as Record<string, HookHealth>)) {
      if (value && typeof value.total === "number") { for (const set of cells.get(id) ?? []) set(value); }
    }
  });
}

/** Shows `set` the health of `hookId` as it changes; returns the function that stops it. */
function watchHealth(hookId: string, set: (health: HookHealth) => void): () => void {
  let mine = cells.get(hookId);
  if (!mine) cells.set(hookId, mine = new Set());
  mine.add(set);
  unsubscribe ??= subscribeLive({ onDelivery: (d) => mark(d ? d.hookId : null), onState: () => {} });
  return () => {
    mine.delete(set);
    if (mine.size === 0) cells.delete(hookId);
    if (cells.size > 0) return;
    clearTimeout(timer);
    timer = undefined;
    due.clear();
    unsubscribe?.();
    unsubscribe = null;
  };
}

/** The live health cell. */
export default function LiveHealth(props: LiveHealthProps): VNode {
  const [health, setHealth] = useState<HookHealth | undefined>(props.health);
  useEffect(() => watchHealth(props.hookId, setHealth), [props.hookId]);
  return <HealthText health={health} />;
}
