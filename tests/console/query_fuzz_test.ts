// The console's pages under any query string and path segment a browser or
// a hostile link can send (fast-check): every GET answers without a 5xx, a
// JSON answer parses, no page carries a value's markup unescaped, and
// nothing the input holds forges a line of the console's log.

import assert from "node:assert/strict";
import fc from "fast-check";
import { trigger, withHook } from "./_helpers.ts";
import { assertEscaped, assertNoForgedLine, captureConsole, MARK } from "./_fuzz.ts";

/** What a value may hold: markup, line breaks, numbers of any size, dates, cursors, nothing. */
const value = fc.oneof(
  { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 40 }), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      MARK,
      `"${MARK}`,
      `'><x-evil a='`,
      "\r\nFORGED log line",
      "-1",
      "0",
      "1e309",
      "NaN",
      "9007199254740993",
      "2026-11-28T10:00",
      "2026-13-45T99:99:99",
      "accepted",
      "rejected",
      "401",
      "%",
      "%00",
      "",
    ),
    weight: 4,
  },
  { arbitrary: fc.integer().map(String), weight: 1 },
  { arbitrary: fc.double().map(String), weight: 1 },
);
const KEYS = [
  "hook",
  "status",
  "verb",
  "community",
  "from",
  "to",
  "q",
  "before",
  "after",
  "limit",
  "notice",
  "error",
  "returnTo",
  "adopted",
  "tab",
  "page",
  "cursor",
];
// Each known key present or not, and a few unknown ones.
const query = fc.tuple(
  fc.record(Object.fromEntries(KEYS.map((k) => [k, value])), { requiredKeys: [] }),
  fc.array(fc.tuple(fc.string({ maxLength: 8 }), value), { maxLength: 2 }),
).map(([known, other]) => [...Object.entries(known), ...other] as [string, string][]);
const PATHS = [
  "/",
  "/deliveries",
  "/deliveries.json",
  "/deliveries/stats.json",
  "/deliveries/{any}",
  "/webhooks",
  "/webhooks/{hook}",
  "/webhooks/{any}",
  "/webhooks/{hook}/health.json",
  "/webhooks/{hook}/forward",
  "/webhooks/new",
  "/communities",
  "/communities/{any}",
  "/communities/{any}/reconcile",
  "/events",
  "/signin",
];

Deno.test("each page answers any query string and path segment without a 5xx, markup escaped, no log line forged (property)", async () => {
  await withHook(async (t, hook, client) => {
    assert.deepEqual(await trigger(t.origin, { webhookId: hook.platformId }), [200]);
    await captureConsole(async (logged) => {
      await fc.assert(
        fc.asyncProperty(value, query, async (segment, pairs) => {
          for (const template of PATHS) {
            const path = template.replace("{hook}", hook.id).replace("{any}", encodeURIComponent(segment));
            const search = new URLSearchParams(pairs).toString();
            const url = search ? `${path}?${search}` : path;
            const res = await client.fetch(url);
            const body = await res.text();
            assert.ok(res.status < 500, `GET ${url}: ${res.status} ${body.slice(0, 300)}`);
            assert.equal(res.headers.get("x-content-type-options"), "nosniff", `GET ${url}: sniffable`);
            if ((res.headers.get("content-type") ?? "").includes("json")) {
              JSON.parse(body); // a value in a JSON string is data, and nosniff keeps a browser from reading it as a page
            } else {
              assertEscaped(body, `GET ${url}`);
            }
            assertNoForgedLine(logged, `GET ${url}`);
          }
        }),
        { numRuns: 150 },
      );
    });
  });
});
