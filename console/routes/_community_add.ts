// Adding a community (the form is in communities.tsx). Two adds of one tenant id at once cannot both save, and an add
// that finds the tenant id taken by the community this very form makes (the same form sent twice at once, or again
// from history) answers as the first one did ("saved"), not "already exists" above a form to send again.

import type { Context } from "hono";
import type { Community } from "../../webhooks/mod.ts";
import { type ConsoleEnv, type Deps, describeError } from "../lib/context.ts";
import { addingCommunityKey } from "../lib/kv_keys.ts";
import { waitWhile } from "../lib/kv_retry.ts";
import type { CommunityForm } from "./_community_form.tsx";

/** Whether `stored` is what adding `form` stores. */
function madeBy(stored: Community, form: CommunityForm): boolean {
  const tokens = form.accessToken
    ? stored.oauth?.access_token === form.accessToken && (stored.oauth?.refresh_token ?? "") === form.refreshToken
    : stored.oauth === undefined;
  return tokens && stored.name === form.name && stored.baseUrl === form.baseUrl &&
    (stored.clientId ?? "") === form.clientId && (stored.clientSecret ?? "") === form.clientSecret;
}

/** How long an add holds its tenant id at most. */
const HOLD_MS = 60_000;

/**
 * Whether a hold's value is an add in progress: the time it holds until, not past and not further ahead than a hold
 * lasts (or `true`, as earlier versions held). Anything else, edited by hand or left by a bad write, is none.
 */
function isHeld(value: unknown): boolean {
  if (value === true) return true;
  const now = Date.now();
  return typeof value === "number" && value > now && value <= now + 2 * HOLD_MS;
}

/** The answer to an add whose tenant id is taken by what this form makes, once an add in progress ended; else `null`. */
async function addedAlready(c: Context<ConsoleEnv>, deps: Deps, form: CommunityForm): Promise<Response | null> {
  // The other add holds the tenant id while it runs.
  await waitWhile(deps.kv, addingCommunityKey(form.tenantId), (entry) => isHeld(entry.value));
  const stored = await deps.webhooks.communities.findByTenantID(form.tenantId);
  if (!stored || !madeBy(stored, form)) return null;
  return c.redirect(`/communities/${encodeURIComponent(form.tenantId)}?notice=saved`, 303);
}

/**
 * Adds the community of a checked form: the redirect to its page, or `refuse`'s answer with why it was not added.
 *
 * @param c the request's context
 * @param deps the console's dependencies
 * @param form the form, checked
 * @param refuse the form again, with an error
 * @returns the answer
 */
export async function addCommunity(
  c: Context<ConsoleEnv>,
  deps: Deps,
  form: CommunityForm,
  refuse: (error: string) => Response | Promise<Response>,
): Promise<Response> {
  // `save` replaces a stored community: two adds at once would both pass the check below, and the second would
  // silently replace the first. The add holds its tenant id meanwhile.
  const adding = addingCommunityKey(form.tenantId);
  // Held until a time (ms): a hold past it, or edited into junk, holds nothing and is taken over.
  const hold = async () => {
    const entry = await deps.kv.get(adding);
    if (entry.versionstamp !== null && isHeld(entry.value)) return false;
    const until = Date.now() + HOLD_MS;
    return (await deps.kv.atomic().check(entry).set(adding, until, { expireIn: HOLD_MS }).commit()).ok;
  };
  const exists = `A community with tenant id '${form.tenantId}' already exists`;
  if (!await hold()) {
    const answer = await addedAlready(c, deps, form);
    if (answer) return answer;
    // The add in progress failed (nothing stored, its hold let go): this one goes ahead, as if it had been alone.
    if (!await hold()) return await refuse(`${exists}, or is being added right now`);
  }
  try {
    const communities = deps.webhooks.communities;
    if (await communities.findByTenantID(form.tenantId)) {
      await deps.kv.delete(adding).catch(() => {});
      return await addedAlready(c, deps, form) ?? await refuse(exists);
    }
    const community: Community = { name: form.name, tenantId: form.tenantId, baseUrl: form.baseUrl };
    if (form.clientId) community.clientId = form.clientId;
    if (form.clientSecret) community.clientSecret = form.clientSecret;
    if (form.accessToken) community.oauth = { access_token: form.accessToken, refresh_token: form.refreshToken };
    try {
      await communities.save(community);
    } catch (err) {
      return await refuse(describeError(err));
    }
    return c.redirect(`/communities/${encodeURIComponent(form.tenantId)}?notice=saved`, 303);
  } finally {
    await deps.kv.delete(adding).catch(() => {});
  }
}
