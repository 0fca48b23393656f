// utcText, the time a page shows without script, and LocalTime's text in the browser: a string that is no ISO time
// with its zone (Z or an offset) is shown as given. A time without a zone was read in the server's (or the
// reader's) zone and labelled as UTC; a year below 1000 lost its digits ("1 Jan 5"); a day no month has, or a
// string no ISO at all ("1"), was read as some other date.

import assert from "node:assert/strict";
import { utcText } from "../../console/components/LocalTime.tsx";
import { withMountedLocalTime } from "./_local_time_page.ts";

Deno.test("utcText shows a time with its zone in UTC, four digits to its year", () => {
  assert.equal(utcText("2026-11-29T18:16:47.123Z"), "29 Nov 2026, 18:16:47 UTC");
  assert.equal(utcText("2026-11-29T20:16:47+02:00"), "29 Nov 2026, 18:16:47 UTC");
  assert.equal(utcText("0005-01-01T00:00:00Z"), "1 Jan 0005, 00:00:00 UTC");
});

Deno.test("utcText shows a string that is no ISO time with a zone as given", () => {
  for (const given of ["2026-11-29T18:16:47", "2026-11-29", "1", "2026-02-30T00:00:00Z", "Sun Nov 29 2026", ""]) {
    assert.equal(utcText(given), given, given);
  }
});

Deno.test("LocalTime in the browser shows a time without a zone as given, in no zone of the reader's", async () => {
  await withMountedLocalTime("2026-11-29T18:16:47", (time) => {
    assert.equal(time.textContent, "2026-11-29T18:16:47");
    assert.equal(time.getAttribute("title"), null);
  });
});
