// The secrets of a platform call that an error may not show: its tokens, the
// community's tokens and client secret, and the Basic credentials the token
// renewal sends, which spell the client secret in base64.

import type { Community } from "../types.ts";
import { blotSecrets, blotSecretsDeep } from "../_util.ts";

/** The secrets of one call: the tokens it holds and its community. */
export interface CallSecrets {
  community: Community;
  credentials: { accessToken: string; refreshToken?: string };
}

/**
 * The Basic credentials of the community's OAuth client, base64 of `clientId:clientSecret`, or `undefined` for a
 * community without a client id (a public client sends none).
 */
export function basicCredentials(community: Community): string | undefined {
  if (!community.clientId) return undefined;
  return new TextEncoder().encode(`${community.clientId}:${community.clientSecret ?? ""}`).toBase64();
}

/**
 * The Basic credentials in every spelling a platform may echo: base64 as sent, without its padding (a prefix of it,
 * which blots the padded one too), base64url, and decoded (`clientId:clientSecret`, long enough to blot however short
 * the secret is).
 */
function basicSpellings(community: Community): string[] {
  const basic = basicCredentials(community);
  if (basic === undefined) return [];
  const unpadded = basic.replace(/=+$/, "");
  return [
    unpadded,
    unpadded.replaceAll("+", "-").replaceAll("/", "_"),
    `${community.clientId}:${community.clientSecret ?? ""}`,
  ];
}

/** Every token and the client secret of a call, the latter in its Basic spellings too. */
function secretsOf({ community, credentials }: CallSecrets): string[] {
  return [
    credentials.accessToken,
    credentials.refreshToken,
    community.clientSecret,
    ...basicSpellings(community),
    community.oauth?.access_token,
    community.oauth?.refresh_token,
  ].filter((secret): secret is string => typeof secret === "string");
}

/**
 * Replaces every token and the client secret in a text that may be shown, and the password (or lone user name, often
 * a token) of every URL in it with `***`: a platform's refusal may quote the callback or object it was sent, whose
 * password is sent as Basic auth.
 */
export function redact(call: CallSecrets, text: string): string {
  return hideUrlUserInfo(blotSecrets(text, secretsOf(call), "[redacted]"));
}

/** `text` with each URL's user info shown as the CLI and the console show it: `user:***@`, or `***@` for a name alone. */
function hideUrlUserInfo(text: string): string {
  return text.replace(
    /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"'<>]*)@/gi,
    (_, scheme: string, info: string) =>
      `${scheme}${info.includes(":") ? info.slice(0, info.indexOf(":") + 1) : ""}***@`,
  );
}

/** The platform's error body, but for any token or secret it echoes: an error may be logged whole. */
export function redactDeep(call: CallSecrets, body: unknown): unknown {
  return blotSecretsDeep(body, secretsOf(call), "[redacted]");
}
