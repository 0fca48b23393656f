// LocalTime in a live page: a time an island adds after the page is up (a
// new delivery's row, a summary's "Last") shows the reader's local time by
// the next task, not the raw ISO until the browser's next frame (the CI run
// of 2026-11-29 read such a row's text in that gap).

import assert from "node:assert/strict";
import { withMountedLocalTime } from "./_local_time_page.ts";

Deno.test("a LocalTime mounted in a live page reads as local time once its render settles, before any frame", async () => {
  const iso = new Date(Date.now() - 2_000).toISOString();
  await withMountedLocalTime(iso, (time) => {
    assert.equal(time.getAttribute("data-local"), "", "shown (style.css hides a time until then)");
    assert.match(time.textContent ?? "", /\((now|\d+ seconds? ago)\)$/);
    assert.notEqual(time.textContent, iso);
    assert.equal(time.getAttribute("title"), iso);
  });
});
