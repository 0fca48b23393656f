// unregister() and a 404: "already gone" unless the answer is an HTML page. A 404 page in HTML comes from a web
// server or the site's error page (a community whose baseUrl is wrong): the hook may still be live on the platform, so
// the call rejects and the local record stays. An empty body, JSON (after the anti-hijacking line) or a line of plain
// text (what a stub or a proxy answers by default) is taken as the API's "no such hook".

import assert from "node:assert/strict";
import { createWebhooks, PlatformError } from "../../../webhooks/mod.ts";
import { communityOf, withPlatform } from "../platform.ts";
import { CALLBACK, PLACE } from "./_register.ts";

const HIJACK = "throw 'allowIllegalResourceCall is false.';\n";

/** Registers a hook, then has the platform answer its DELETE with `answer`; gives what unregister() did. */
async function unregisterAgainst(answer: () => Response): Promise<{ error: unknown; kept: boolean }> {
  let outcome: { error: unknown; kept: boolean } | undefined;
  await withPlatform(async (kv, platform) => {
    const hooks = createWebhooks(kv);
    await hooks.communities.save(communityOf(platform));
    await hooks.register("Acme", ["document"], PLACE, CALLBACK);
    platform.override = (req) => req.method === "DELETE" ? answer() : undefined;
    const [record] = await hooks.findByTenantID("tenant-acme");
    const error = await hooks.unregister(record).then(() => undefined, (e: unknown) => e);
    outcome = { error, kept: (await hooks.findByID(record.id)) !== null };
  });
  return outcome!;
}

const GONE: [string, () => Response][] = [
  ["an empty 404", () => new Response(null, { status: 404 })],
  ["a JSON error 404", () => Response.json({ error: { status: 404, message: "No webhook" } }, { status: 404 })],
  [
    "a JSON 404 after the anti-hijacking line",
    () =>
      new Response(HIJACK + JSON.stringify({ error: { status: 404, message: "No webhook" } }), {
        status: 404,
        headers: { "content-type": "application/json" },
      }),
  ],
  [
    "a plain-text 404",
    () => new Response("404 page not found", { status: 404, headers: { "content-type": "text/plain" } }),
  ],
];

for (const [what, answer] of GONE) {
  Deno.test(`unregister() takes ${what} as already gone and removes the local record`, async () => {
    const { error, kept } = await unregisterAgainst(answer);
    assert.equal(error, undefined);
    assert.equal(kept, false);
  });
}

const NOT_THE_API: [string, () => Response][] = [
  [
    "an HTML 404",
    () =>
      new Response("<!DOCTYPE html><html><body><h1>404 Not Found</h1></body></html>", {
        status: 404,
        headers: { "content-type": "text/html" },
      }),
  ],
  [
    "an HTML 404 without a content type",
    () => new Response("\n  <html><head><title>Not Found</title></head><body>Not Found</body></html>", { status: 404 }),
  ],
  [
    "an XHTML 404 sent as XML",
    () =>
      new Response('<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body>404</body></html>', {
        status: 404,
        headers: { "content-type": "application/xhtml+xml" },
      }),
  ],
];

for (const [what, answer] of NOT_THE_API) {
  Deno.test(`unregister() rejects on ${what} (not the webhooks API) and keeps the local record`, async () => {
    const { error, kept } = await unregisterAgainst(answer);
    assert.ok(error instanceof PlatformError, `expected a PlatformError, got ${error}`);
    assert.equal(error.status, 404);
    assert.equal(error.method, "DELETE");
    assert.match(error.message, /did not come from the webhooks API/);
    assert.match(error.message, /\/api\/core\/v3\/webhooks\//);
    assert.doesNotMatch(error.message, /good-token|good-refresh/);
    assert.equal(kept, true);
  });
}

// A JSON 404 whose body is the platform's error for another status contradicts itself: it does not say the hook is
// gone (a gateway's or a proxy's 404 wrapping a refusal, say), so the record stays for a later try.
Deno.test("unregister() rejects on a 404 whose platform error says another status, and keeps the record", async () => {
  const { error, kept } = await unregisterAgainst(() =>
    Response.json({ error: { status: 403, message: "Forbidden" } }, { status: 404 })
  );
  assert.ok(error instanceof PlatformError, `expected a PlatformError, got ${error}`);
  assert.equal(error.status, 404);
  assert.match(error.message, /403/);
  assert.doesNotMatch(error.message, /good-token|good-refresh/);
  assert.equal(kept, true);
});

// A 404 too large to read (over the client's 16 MiB cap) was not judged at all: the error says so, not "not JSON".
Deno.test("unregister() rejects on a 404 over the size cap saying it is too large, and keeps the record", async () => {
  const { error, kept } = await unregisterAgainst(() =>
    new Response(JSON.stringify({ error: { status: 404, message: "x".repeat(17 * 1024 * 1024) } }), {
      status: 404,
      headers: { "content-type": "application/json" },
    })
  );
  assert.ok(error instanceof PlatformError, `expected a PlatformError, got ${error}`);
  assert.equal(error.status, 404);
  assert.match(error.message, /larger than/);
  assert.doesNotMatch(error.message, /not JSON/);
  assert.equal(kept, true);
});
