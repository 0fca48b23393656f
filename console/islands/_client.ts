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
