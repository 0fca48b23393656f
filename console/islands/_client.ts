/**
 * Client entry of the islands bundle: finds every `[data-island]` marker
 * the server rendered and hydrates the named island with its serialized
 * props (`data-props`, JSON).
 *
 * @module
 */

import { type ComponentType, h, hydrate } from "preact";
import { bySelectorAll } from "../../browser/mod.ts";
import CopyButton from "./CopyButton.tsx";
import DeliveriesLive from "./DeliveriesLive.tsx";
import EventPicker from "./EventPicker.tsx";

// deno-lint-ignore no-explicit-any
const ISLANDS: Record<string, ComponentType<any>> = {
  CopyButton,
  DeliveriesLive,
  EventPicker,
};

for (const el of bySelectorAll("[data-island]") as HTMLElement[]) {
  const component = ISLANDS[el.dataset.island ?? ""];
  if (!component) continue;
  const props = JSON.parse(el.dataset.props ?? "{}");
  hydrate(h(component, props), el);
  el.dataset.hydrated = "true";
}

// A notice (?notice=registered) is shown once: drop it from the address so
// that a reload or a shared link does not show it again.
const address = new URL(location.href);
if (address.searchParams.has("notice")) {
  address.searchParams.delete("notice");
  history.replaceState(history.state, "", address.pathname + address.search + address.hash);
}

// Times: the server writes ISO 8601 (UTC); the browser shows each in the
// reader's local time with how long ago, the exact time on hover.
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [["day", 86_400], ["hour", 3_600], ["minute", 60]];
function ago(ms: number): string {
  const seconds = Math.round((ms - Date.now()) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return relative.format(seconds, "second");
}
function localTimes(): void {
  for (const el of bySelectorAll("time[datetime]") as HTMLTimeElement[]) {
    const when = new Date(el.dateTime);
    if (Number.isNaN(when.getTime())) continue;
    const text = `${when.toLocaleString()} (${ago(when.getTime())})`;
    if (el.textContent !== text) el.textContent = text;
    el.title = when.toISOString();
  }
}
localTimes();
setInterval(localTimes, 30_000);
new MutationObserver(() => localTimes()).observe(document.body, { childList: true, subtree: true });
