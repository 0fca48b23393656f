/**
 * The community form shown again after a refusal: what it keeps of what was
 * typed, and which field the refusal is about.
 *
 * @module
 */

import { withoutBidiControls } from "../lib/labels.ts";
import type { CommunityForm } from "./_community_form.tsx";

/**
 * The form to show again after a refusal: its secrets (and a password in its base URL) left out, never echoed back,
 * and the bidirectional controls of its name and tenant id removed, as the hook's form does, so that saving again is
 * not refused again for characters nobody can see.
 */
export function formToShowAgain(form: CommunityForm): CommunityForm {
  return {
    ...form,
    name: withoutBidiControls(form.name),
    tenantId: withoutBidiControls(form.tenantId),
    baseUrl: withoutCredentials(form.baseUrl),
    clientSecret: "",
    accessToken: "",
    refreshToken: "",
  };
}

/** A URL without its user name and password (a form shown again holds no password), or the text as it is. */
function withoutCredentials(text: string): string {
  const url = URL.parse(text);
  if (!url || (!url.username && !url.password)) return text;
  url.username = url.password = "";
  return url.href;
}

/** The field a refusal of the community form is about, from its message (`validate`'s, or the add's), if one. */
export function faultOf(error: string | undefined): keyof CommunityForm | undefined {
  if (!error) return undefined;
  if (/^Name\b/.test(error)) return "name";
  if (/^(Tenant id\b|A community with tenant id\b)/.test(error)) return "tenantId";
  if (/^Base URL\b/.test(error)) return "baseUrl";
  if (/^A refresh token needs an access token/.test(error)) return "accessToken";
  return undefined;
}
