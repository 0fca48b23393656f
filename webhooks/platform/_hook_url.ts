// Addressing a hook on its community's platform (by id, else by a self URL
// under the community's own base) and deleting it there.

import { selfRef } from "../store/mod.ts";
import { type PlatformContext, platformRequest, platformUrl } from "./_platform.ts";
import { PlatformError } from "../errors.ts";
import { HtmlAnswer, isErrorBody } from "./_answer.ts";
import type { Community, WebhookEntity } from "../types.ts";

/**
 * The URL of a hook on its community's platform, `{base}/api/core/v3/webhooks/{id}`,
 * or `null`. An id that is empty or a dot segment addresses no hook. An entity without an id is addressed by its self URL only when
 * that URL is under the same path of the community's own base: a stored or
 * listed entity could name any host, and the request carries the community's
 * token.
 */
export function platformHookUrl(community: Community, entity: WebhookEntity): string | null {
  // An empty id, "." or ".." would address the collection or a path above it (the URL resolves dot segments).
  if ((typeof entity.id === "string" && !["", ".", ".."].includes(entity.id)) || typeof entity.id === "number") {
    return platformUrl(community, `/api/core/v3/webhooks/${encodeURIComponent(String(entity.id))}`);
  }
  const url = URL.parse(selfRef(entity) ?? "");
  const under = URL.parse(platformUrl(community, "/api/core/v3/webhooks/"));
  // Compared as parsed (origin, then path with dot segments resolved): a spelling that parses elsewhere is not under it.
  const ok = url !== null && under !== null && url.origin === under.origin &&
    url.pathname.startsWith(under.pathname) && url.pathname.length > under.pathname.length;
  return ok ? url.href : null;
}

export function hookUrl(community: Community, entity: WebhookEntity, action: string): string {
  const url = platformHookUrl(community, entity);
  if (url !== null) return url;
  throw new TypeError(
    selfRef(entity) === undefined
      ? `Cannot ${action}: its entity has no id`
      : `Cannot ${action}: its entity has no id, and its self URL is not a webhook of the community's platform (${
        platformUrl(community, "/api/core/v3/webhooks/")
      })`,
  );
}

/**
 * Deletes a hook on the platform. A 404 means the hook is already gone and counts as deleted (an empty body, JSON
 * after the anti-hijacking line, or a line of plain text, what a proxy or a stub answers), unless it is an HTML page:
 * that comes from a web server or the site's error page (a community whose baseUrl is wrong, say), the hook may still
 * be live, so that 404 is a failure. So is a 404 whose JSON is the platform's error for another status
 * (`{"error":{"status":403}}`): it does not say "gone".
 */
export async function deleteOnPlatform(
  ctx: PlatformContext,
  community: Community,
  entity: WebhookEntity,
): Promise<void> {
  const url = hookUrl(community, entity, "delete webhook on the platform");
  try {
    await platformRequest(ctx, "DELETE", url);
  } catch (error) {
    // Only a 404 read in full is judged: one not read (over the size cap) keeps its own error.
    if (!(error instanceof PlatformError && error.status === 404) || error.uncertain) throw error;
    // The client keeps the parsed body (null when empty) of a JSON answer, and none (undefined) of any other.
    if (error.body !== undefined) {
      const said = isErrorBody(error.body) ? (error.body as { error: { status?: unknown } }).error.status : undefined;
      if (said === undefined || said === 404 || said === "404") return;
      throw new PlatformError(
        "DELETE",
        url,
        404,
        `the platform's error says status ${JSON.stringify(said).slice(0, 20)}, not 404: the hook may still be there`,
        { cause: error, body: error.body, uncertain: false },
      );
    }
    if (!(error.cause instanceof HtmlAnswer)) return;
    throw new PlatformError(
      "DELETE",
      url,
      404,
      "the answer did not come from the webhooks API (it is an HTML page): check the community's baseUrl",
      { cause: error, uncertain: false },
    );
  }
}
