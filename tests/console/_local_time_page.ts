// A LocalTime mounted in a live page (happy-dom), as an island adds one after the page is up: for the tests of what
// the browser shows. Only microtasks run between the mount and `fn` (Preact's re-render after a state change), not
// a frame or a timer.

import { h, render } from "preact";
import { LocalTime } from "../../console/components/LocalTime.tsx";
import { parse } from "./_client.ts";

/** Mounts `<LocalTime iso={iso} />`, lets its render settle, and runs `fn` with its `<time>`; unmounted after. */
export async function withMountedLocalTime(iso: string, fn: (time: Element) => void | Promise<void>): Promise<void> {
  const page = parse("<!doctype html><html><body><div id=cell></div></body></html>");
  const hadDocument = "document" in globalThis;
  Object.assign(globalThis, { document: page.document });
  const cell = page.document.getElementById("cell")! as unknown as Element;
  try {
    render(h(LocalTime, { iso }), cell);
    for (let i = 0; i < 5; i++) await Promise.resolve();
    await fn(cell.querySelector("time")!);
  } finally {
    render(null, cell);
    if (!hadDocument) delete (globalThis as { document?: unknown }).document;
    page.close();
  }
}
