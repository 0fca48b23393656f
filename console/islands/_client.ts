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
import LiveChart from "./LiveChart.tsx";
import LiveHealth from "./LiveHealth.tsx";
import { ago, localText, zonedTime } from "../components/LocalTime.tsx";
import { PAGE_ERROR_ID } from "../components/field_error.ts";

// deno-lint-ignore no-explicit-any
const ISLANDS: Record<string, ComponentType<any>> = {
  CopyButton,
  DeliveriesLive,
  EventPicker,
  LiveChart,
  LiveHealth,
};

for (const el of bySelectorAll("[data-island]") as HTMLElement[]) {
  const component = ISLANDS[el.dataset.island ?? ""];
  if (!component) continue;
  const props = JSON.parse(el.dataset.props ?? "{}");
  hydrate(h(component, props), el);
  el.dataset.hydrated = "true";
}

// An action's outcome (?notice=registered) is shown once: drop it from the address (with a test event's answer), so
// that a reload, a bookmark or a shared link does not show it again; and a page the history brings back (Back,
// Forward: from the back/forward cache or the HTTP cache) shows no notice, nor the outcome its address carried, and
// so moves no focus to one, as if the action had just happened again. Without JavaScript the address keeps it.
const OUTCOME = "cwOutcome";
const address = new URL(location.href);
if (address.searchParams.has("notice")) {
  if (address.searchParams.get("notice") === "triggered") {
    ["answer", "at"].forEach((n) => address.searchParams.delete(n));
  }
  address.searchParams.delete("notice");
  const state = { ...history.state, [OUTCOME]: true };
  history.replaceState(state, "", address.pathname + address.search + address.hash);
}
function forgetOutcome(): void {
  document.getElementById("page-notice")?.remove();
  if (history.state?.[OUTCOME]) document.getElementById(PAGE_ERROR_ID)?.remove();
  // A secret shown once (Forward to's Add) is not shown again by the history: the sentence beside it says so.
  const secret = document.getElementById("forward-added");
  if (secret) {
    secret.remove();
    document.getElementById("forward-secret-gone")?.removeAttribute("hidden");
  }
}
const arrival = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
if (arrival?.type === "back_forward") forgetOutcome();
addEventListener("pageshow", (e) => {
  if (e.persisted) forgetOutcome();
});

// A signed-in page that comes back from the browser's caches shows nothing
// until its session is known to be alive: after sign-out (or once the
// session ended elsewhere), Back showed the last pages, data and all. A page
// is hidden as it goes into the back/forward cache and shown again (or
// reloaded, which leads to sign-in) when it comes back; one Back loads from
// the HTTP cache is hidden by static/guard.js before it shows.
async function showIfSignedIn(): Promise<void> {
  // This page's session, not merely some session: another user may have signed in since. No answer within 5 s
  // counts as none (a reload then shows what the server says).
  const token = document.querySelector<HTMLInputElement>("form[action='/signout'] input[name=_csrf]")?.value ?? "";
  const alive = await fetch("/session", {
    cache: "no-store",
    headers: { "x-csrf-token": token },
    signal: AbortSignal.timeout(5_000),
  }).then((r) => r.status === 204, () => false);
  if (alive) delete document.documentElement.dataset.away;
  else location.reload();
}
if (document.querySelector("form[action='/signout']")) {
  if (document.documentElement.dataset.away !== undefined) showIfSignedIn();
  addEventListener("pagehide", (e) => {
    if (e.persisted) document.documentElement.dataset.away = "";
  });
  addEventListener("pageshow", (e) => {
    if (e.persisted) showIfSignedIn();
  });
}

// A form marked data-once is sent once until its answer comes: a double click's second submission would replace the
// first one's navigation, and the page shown would be the second answer (Forward to's Add shows the new secret in
// the first answer only). Sent again after 10 s without an answer, once the page is shown from the history, or once
// the submission was stopped.
addEventListener("submit", (e) => {
  const form = e.target as HTMLFormElement;
  if (e.defaultPrevented || !form.matches("form[data-once]")) return; // one that another handler cancelled was not sent
  if (form.dataset.sent !== undefined) return e.preventDefault();
  form.dataset.sent = "";
  setTimeout(() => delete form.dataset.sent, 10_000);
});
const sendAgain = () => {
  for (const form of bySelectorAll("form[data-sent]") as HTMLFormElement[]) delete form.dataset.sent;
};
addEventListener("pageshow", sendAgain);
// The user's Stop (or another navigation) ended the submission: no answer will come. The Navigation API says so
// where there is one (Chromium); elsewhere the 10 s above.
(globalThis as { navigation?: EventTarget }).navigation?.addEventListener("navigateerror", sendAgain);

// Times outside islands: the server writes UTC (ISO 8601 in `datetime`, readable in the text); the browser shows
// each in the reader's local time with how long ago, the exact time on
// hover. Islands render theirs with LocalTime, which Preact keeps current:
// text changed behind Preact's back would stay stale.
function localTimes(): void {
  for (const el of bySelectorAll("time[datetime]") as HTMLTimeElement[]) {
    if (el.closest("[data-island]")) continue; // kept by its island
    const when = zonedTime(el.dateTime);
    el.dataset.local = ""; // shown from now on (the stylesheet, console/static/css/, hides a time until then)
    if (!when) continue; // no time with its zone: as the server wrote it
    const text = `${localText(when)} (${ago(when.getTime(), Date.now())})`;
    if (el.textContent !== text) el.textContent = text;
    el.title = when.toISOString();
  }
}
localTimes();
setInterval(localTimes, 30_000);
new MutationObserver(() => localTimes()).observe(document.body, { childList: true, subtree: true });
