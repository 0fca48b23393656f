// The console's forms under any field values a browser or a hostile page can
// post (fast-check), with this session's CSRF token: every POST route
// answers without a 5xx (but the platform's refusal, passed on as a 502), no value's markup comes back unescaped in a page,
// and nothing the input holds forges a line of the console's log. Sign-out
// and the confirmations that remove things are left out, so that every run
// finds the session and the hook still there.

import assert from "node:assert/strict";
import fc from "fast-check";
import { SANDBOX_COMMUNITY } from "../../sandbox/mod.ts";
import { csrfOf, withHook } from "./_helpers.ts";
import { assertEscaped, assertNoForgedLine, captureConsole, MARK } from "./_fuzz.ts";

const value = fc.oneof(
  { arbitrary: fc.string({ maxLength: 40 }), weight: 1 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 40 }), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      MARK,
      `"${MARK}`,
      `'><x-evil a='`,
      "\r\nFORGED log line",
      "https://user:pw@example.com/<x-evil>",
      "javascript:alert(1)",
      "http://127.0.0.1:1/x",
      "on",
      "off",
      "true",
      "-1",
      "1e309",
      "",
      "x".repeat(5_000),
    ),
    weight: 4,
  },
);
/** Every field a console form reads. */
const FIELDS = [
  "name",
  "tenantId",
  "baseUrl",
  "clientId",
  "clientSecret",
  "accessToken",
  "refreshToken",
  "clearTokens",
  "secretFrom",
  "events",
  "object",
  "callback",
  "description",
  "label",
  "enabled",
  "url",
  "formToken",
  "deleteUnknown",
  "kind",
  "page",
];
const fields = fc.record(
  Object.fromEntries(FIELDS.map((k) => [k, fc.oneof(value, fc.array(value, { minLength: 2, maxLength: 3 }))])),
  { requiredKeys: [] },
);
const ROUTES = [
  "/communities",
  "/communities/{tenant}",
  "/communities/{any}",
  "/communities/{any}/reconcile",
  "/communities/{any}/revoke-previous-secret",
  "/deliveries/{any}/redeliver",
  "/deliveries/{any}/replay",
  "/webhooks",
  "/webhooks/{hook}/enabled",
  "/webhooks/{hook}/events",
  "/webhooks/{hook}/label",
  "/webhooks/{hook}/test",
  "/webhooks/{hook}/forward",
  "/webhooks/{hook}/forward/{any}/enabled",
  "/webhooks/{hook}/forward/{any}/remove",
  "/webhooks/{hook}/forward/redeliver/{any}",
  "/webhooks/{any}/label",
  "/webhooks/{any}/unregister",
  "/webhooks/{any}/forget",
];

Deno.test("each form answers any field values without a 5xx, markup escaped, no log line forged (property)", async () => {
  await withHook(async (_t, hook, client) => {
    const csrf = csrfOf(await client.text("/", 200));
    await captureConsole(async (logged) => {
      await fc.assert(
        fc.asyncProperty(value, fields, async (segment, form) => {
          for (const template of ROUTES) {
            const path = template.replace("{hook}", hook.id).replace("{tenant}", SANDBOX_COMMUNITY.tenantId)
              .replace("{any}", encodeURIComponent(segment || "x"));
            const res = await client.post(path, { ...(form as Record<string, string | string[]>), _csrf: csrf });
            const body = await res.text();
            // 502 is the platform's refusal passed on (an event name it does not know), shown on the page.
            assert.ok(res.status < 500 || res.status === 502, `POST ${path}: ${res.status} ${body.slice(0, 300)}`);
            if (res.status === 502) {
              assert.match(body, /failed|refused|platform/i, `POST ${path}: 502 without a reason`);
            }
            if ((res.headers.get("content-type") ?? "").includes("html")) {
              assertEscaped(body, `POST ${path}`);
            }
            assertNoForgedLine(logged, `POST ${path}`);
          }
        }),
        { numRuns: 40 },
      );
    });
  });
});
