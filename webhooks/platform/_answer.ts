// The body of a platform answer: read within a size bound, and judged a
// failure when it is the platform's error shape.

import { PlatformError } from "../errors.ts";
import { describe, joinChunks } from "../_util.ts";
import { selfRef } from "../store/mod.ts";
import type { WebhookEntity } from "../types.ts";

/** The largest answer read, in bytes: far above any hook or page of hooks, far below what would exhaust memory. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** The answer's text and its size in bytes, read up to {@linkcode MAX_ANSWER_BYTES}: a platform that sends more fails the call. */
export async function readCapped(
  method: string,
  url: string,
  response: Response,
): Promise<{ text: string; size: number }> {
  if (response.body === null) return { text: "", size: 0 };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => {});
      // The platform answered, and may have acted: a GET changed nothing.
      throw new PlatformError(method, url, response.status, `the answer is larger than ${MAX_ANSWER_BYTES} bytes`, {
        uncertain: method !== "GET",
      });
    }
    chunks.push(read.value);
  }
  return { text: new TextDecoder().decode(joinChunks(chunks, size)), size };
}

/**
 * Whether a body is the platform's error (`{ error: { status, message } }`)
 * and nothing else: a 2xx answer of that shape is a failure, not an entity.
 */
export function isErrorBody(body: unknown): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const error = (body as { error?: unknown }).error;
  return typeof error === "object" && error !== null && !Array.isArray(error) &&
    !["id", "resources", "entity", "list", "access_token"].some((key) => key in body);
}

/**
 * What a failed answer says: the platform's error message, else its text, else the status text, each through
 * `clean` (the first two before they are cut to 300 characters: a secret the cut went through would leave its first
 * part uncleaned).
 */
export function errorDetail(
  body: unknown,
  text: string,
  statusText: string,
  clean: (text: string) => string = (text) => text,
): string {
  const error = (body as { error?: unknown } | null)?.error;
  const message = typeof error === "object" && error !== null
    ? (error as { message?: unknown }).message
    : (body as { message?: unknown; error_description?: unknown } | null)?.message ??
      (body as { error_description?: unknown } | null)?.error_description ?? error;
  if (typeof message === "string" && message !== "") return clean(message).slice(0, 300);
  if (text.trim() !== "") return clean(text.trim()).slice(0, 300);
  return statusText ? clean(statusText) : "no details";
}

/**
 * The entity of a registration answer. The platform answers with the entity
 * itself; an answer wrapped as `{ entity }` is unwrapped.
 */
export function entityOf(body: unknown, status: number, url: string, method = "POST"): WebhookEntity {
  const isEntity = (value: unknown): value is object =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  // An answer shaped { entity } (with no resources of its own) is unwrapped; what it wraps must be an entity too.
  const wrapped = isEntity(body) && "entity" in body && !("resources" in body);
  const entity = wrapped ? (body as { entity: unknown }).entity : body;
  if (!isEntity(entity)) {
    // The hook may exist all the same: the pending entry stays for reconcile. A GET changed nothing.
    throw new PlatformError(method, url, status, `the answer holds no webhook entity, got ${describe(entity)}`, {
      uncertain: method !== "GET",
    });
  }
  return entity as WebhookEntity;
}

/**
 * The hook as the platform answered it, keeping the stored entity's id and
 * self URL where the answer has none: a platform that answers with the
 * hook's fields only would otherwise leave a record that can no longer be
 * found by its URL nor addressed on the platform.
 */
export function keepingRefs(answered: WebhookEntity, stored: WebhookEntity): WebhookEntity {
  return {
    ...answered,
    ...(answered.id === undefined && stored.id !== undefined ? { id: stored.id } : {}),
    ...(selfRef(answered) === undefined && stored.resources !== undefined ? { resources: stored.resources } : {}),
  };
}

/**
 * A hook's events as the list a request sends: the platform documents them as one comma-separated string
 * (PLATFORM.md), the form a hook it listed or read may bring into a record; any other value is given back as it is.
 */
export function eventsList(events: unknown): unknown {
  return typeof events === "string" ? events.split(",").map((e) => e.trim()).filter(Boolean) : events;
}

/**
 * The cause of a failure whose answer was an HTML page (its content type says so, or its text starts with a tag): a
 * web server's or a site's error page, not the webhooks API, which answers JSON.
 */
export class HtmlAnswer extends Error {
  /** Makes the cause; `contentType` as the answer gave it, cut. */
  constructor(contentType: string) {
    super(`the answer is an HTML page${contentType ? ` (${contentType.slice(0, 60)})` : ""}`);
    this.name = "HtmlAnswer";
  }
}

/** Whether an answer that is not JSON is an HTML page: by its content type, or by a first character `<`. */
export function htmlAnswer(response: Response, text: string): HtmlAnswer | undefined {
  const type = response.headers.get("content-type") ?? "";
  return /html/i.test(type) || text.trimStart().startsWith("<") ? new HtmlAnswer(type) : undefined;
}
