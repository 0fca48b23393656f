// LocalTime in a live page: a time an island adds after the page is up (a
// new delivery's row, a summary's "Last") shows the reader's local time by
// the next task, not the raw ISO until the browser's next frame (the CI run
// of 2026-11-29 read such a row's text in that gap).

import assert from "node:assert/strict";
import { h, render } from "preact";
import { LocalTime } from "../../console/components/LocalTime.tsx";
import { parse } from "./_client.ts";

Deno.test("a LocalTime mounted in a live page reads as local time once its render settles, before any frame", async () => {
  const page = parse("<!doctype html><html><body><div id=cell></div></body></html>");
  const hadDocument = "document" in globalThis;
  Object.assign(globalThis, { document: page.document });
  const cell = page.document.getElementById("cell")! as unknown as Element;
  try {
    const iso = new Date(Date.now() - 2_000).toISOString();
    render(h(LocalTime, { iso }), cell);
    // Only microtasks: Preact's re-render after a state change; not a frame or a timer.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    const time = cell.querySelector("time")!;
    assert.equal(time.getAttribute("data-local"), "", "shown (style.css hides a time until then)");
    assert.match(time.textContent ?? "", /\((now|\d+ seconds? ago)\)$/);
    assert.notEqual(time.textContent, iso);
    assert.equal(time.getAttribute("title"), iso);
  } finally {
    render(null, cell);
    if (!hadDocument) delete (globalThis as { document?: unknown }).document;
    page.close();
  }
});
