// Whether an edit of a community (communities.tsx) sets a new client secret from a form rendered before another
// rotation: judged on the state now, read in an order that sees the form's own rotation, made by its twin sent at once.

import type { Communities, Community } from "../../webhooks/mod.ts";
import { type CommunityForm, staleSecret } from "./_community_form.tsx";

/**
 * Whether the form's new secret is refused ({@linkcode staleSecret}), judged on the rotation read first, then the
 * record read after it: a rotation committed between the two reads by the same form sent twice shows its secret
 * in the record, so it is seen as this form's own, never as "another client secret was saved".
 *
 * @param communities the community store
 * @param form the form sent
 * @param read the record the request read first
 * @returns `true` when the form is to be refused
 */
export async function secretChanged(communities: Communities, form: CommunityForm, read: Community): Promise<boolean> {
  if (!form.clientSecret) return false;
  const rotation = await communities.secretRotation(read.tenantId);
  return staleSecret(form, await communities.findByTenantID(read.tenantId) ?? read, rotation);
}
