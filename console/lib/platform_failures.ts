/**
 * The platform's side of a delivery, as the console's sandbox sees it: a
 * postback that could not reach its callback (refused address, connection
 * refused, no answer), or that a callback other than this console's
 * receiver answered with an error, goes into the delivery log of its hook as
 * a platform-side failure. (A callback that is this console's receiver logs
 * its own answers.)
 *
 * @module
 */

import type { Webhooks } from "../../webhooks/mod.ts";
import type { DeliveryStore } from "../log/mod.ts";
import { peekAnswer, type ResponseInfo } from "./answers.ts";

/** How a platform-side failure's reason starts in the delivery log. */
export const PLATFORM_FAILURE = "Platform-side failure";

/** What {@linkcode recordPlatformFailures} needs. */
export interface PlatformFailureOptions {
  /** This console's origin: callbacks under `{publicUrl}/hooks/` log their own answers. */
  publicUrl: string;
  /** Module A, to find the record of the hook a postback was for. */
  webhooks: Webhooks;
  /** Where the failures are logged. */
  deliveries: DeliveryStore;
}

/** JiveEXTN parameters that carry no secret. */
const PUBLIC_PARAMS = ["algorithm", "client_id", "jive_url", "tenant_id", "timestamp"];

/** A JiveEXTN `Authorization` value reduced to its public parameters (the signature dropped), or `""`. */
export function publicAuthorization(value: string | null): string {
  const match = /^JiveEXTN +(\S+)$/.exec(value?.trim() ?? "");
  if (!match) return "";
  const kept = match[1].split("&").filter((pair) => {
    const eq = pair.indexOf("=");
    return eq > 0 && PUBLIC_PARAMS.includes(pair.slice(0, eq)) && !/[=,;]/.test(pair.slice(eq + 1));
  });
  return kept.length ? `JiveEXTN ${kept.join("&").slice(0, 1024)}` : "";
}

/** The timestamp (ms) of a JiveEXTN `Authorization` value as logged (masked or not), or `null`. */
export function signedAt(value: string | undefined): number | null {
  const match = /(?:^|[\s&])timestamp=(\d{1,16})(?:&|$)/.exec(value ?? "");
  return match ? Number(match[1]) : null;
}

/** The reason of a failed call, without the URL (its query may hold anything). */
export function failureCause(error: unknown): string {
  if (!(error instanceof Error)) return "the call failed";
  const text = error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message;
  return text.replace(/error sending request for url \([^)]*\):\s*/gi, "").replace(/https?:\/\/\S+/g, "")
    .replace(/\s+/g, " ").trim().slice(0, 250) || "the call failed";
}

/**
 * Wraps the fetch the sandbox sends its postbacks with, so that each failed
 * postback is logged under its hook's record (found by the postback's
 * `webhook` URL and `X-Tenant-ID`) before the sandbox learns of it. A
 * postback for a hook the console has no record of is not logged.
 *
 * @param fetchFn the fetch that sends
 * @param options the console's origin, Module A and the delivery log
 * @returns the fetch to give the sandbox
 */
export function recordPlatformFailures(fetchFn: typeof fetch, options: PlatformFailureOptions): typeof fetch {
  const ours = `${options.publicUrl}/hooks/`;
  const record = async (
    request: Request,
    body: string,
    started: number,
    status: number,
    reason: string,
    response?: ResponseInfo,
  ) => {
    let ref = "";
    try {
      const items = JSON.parse(body);
      ref = Array.isArray(items) && typeof items[0]?.webhook === "string" ? items[0].webhook : "";
    } catch {
      return;
    }
    const tenantId = request.headers.get("x-tenant-id") ?? "";
    const hook = ref ? (await options.webhooks.findByWebhookURL(ref)).find((w) => w.tenantId === tenantId) : undefined;
    if (!hook) return;
    const headers: Record<string, string> = {};
    for (const name of ["content-type", "x-tenant-id"]) {
      const value = request.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    // Its public parameters only (never the signature): the timestamp names the postback for a redelivery.
    const authorization = publicAuthorization(request.headers.get("authorization"));
    if (authorization) headers.authorization = authorization;
    await options.deliveries.addRejected({
      status,
      reason: `${PLATFORM_FAILURE}: ${reason}`,
      tenantId,
      durationMs: performance.now() - started,
      receivedAt: Date.now(),
      bodyExcerpt: body.slice(0, 2048),
      headers,
      ...(response ? { response } : {}),
    }, hook.id);
  };
  return async (input, init) => {
    const request = new Request(input, init);
    if (request.method !== "POST") return await fetchFn(request);
    const body = await request.clone().text();
    const started = performance.now();
    let response: Response;
    try {
      response = await fetchFn(request);
    } catch (error) {
      await record(request, body, started, 0, `the platform could not reach the callback (${failureCause(error)})`)
        .catch(() => {});
      throw error;
    }
    if (!request.url.startsWith(ours) && (response.status < 200 || response.status > 299)) {
      // What the callback answered, kept for the delivery's page: a copy of its body read, the original left whole.
      const answer = await peekAnswer(response).catch(() => undefined);
      await record(request, body, started, response.status, `the callback answered ${response.status}`, answer)
        .catch(() => {});
    }
    return response;
  };
}
