/**
 * The sandbox's `429` answer, for the rate limit its host (the console) puts
 * on the trigger: the sandbox's own HTML page for a form post from its index,
 * JSON like the trigger's other answers for everything else.
 *
 * @module
 */

import { tooManyRequestsPage } from "./_pages.ts";

/**
 * Answers `429 Too Many Requests` with `Retry-After` to a request of the
 * sandbox over its rate limit: an HTML form post gets the sandbox's page
 * (its layout, the wait in seconds, a link back to the sandbox), any other
 * request `{ error: "Too many requests: try again in N s" }`.
 *
 * @param request The refused request (only its `Content-Type` is read).
 * @param retryAfter Seconds until the limit's window ends; a positive integer.
 * @returns The 429 response.
 * @throws {RangeError} When `retryAfter` is not a positive integer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sandboxTooManyRequests } from "./mod.ts";
 *
 * const form = new Request("http://localhost/sandbox/trigger", {
 *   method: "POST",
 *   headers: { "content-type": "application/x-www-form-urlencoded" },
 *   body: "event=document",
 * });
 * const page = await sandboxTooManyRequests(form, 12);
 * assert.equal(page.status, 429);
 * assert.equal(page.headers.get("retry-after"), "12");
 * assert.match(await page.text(), /<title>Too many requests · Sandbox community<\/title>/);
 *
 * const json = await sandboxTooManyRequests(new Request("http://localhost/sandbox/trigger", { method: "POST" }), 12);
 * assert.deepEqual(await json.json(), { error: "Too many requests: try again in 12 s" });
 * ```
 */
export async function sandboxTooManyRequests(request: Request, retryAfter: number): Promise<Response> {
  if (!Number.isInteger(retryAfter) || retryAfter < 1) {
    throw new RangeError(`Cannot answer 429: 'retryAfter' must be a positive integer, got ${retryAfter}`);
  }
  const headers = { "retry-after": String(retryAfter), "cache-control": "no-store" };
  const type = request.headers.get("content-type") ?? "";
  if (/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) {
    const body = String(await tooManyRequestsPage(retryAfter));
    return new Response(body, { status: 429, headers: { ...headers, "content-type": "text/html; charset=utf-8" } });
  }
  return Response.json({ error: `Too many requests: try again in ${retryAfter} s` }, { status: 429, headers });
}
