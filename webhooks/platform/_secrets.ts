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

/** Replaces every token and the client secret in a text that may be shown. */
export function redact(call: CallSecrets, text: string): string {
  return blotSecrets(text, secretsOf(call), "[redacted]");
}

/** The platform's error body, but for any token or secret it echoes: an error may be logged whole. */
export function redactDeep(call: CallSecrets, body: unknown): unknown {
  return blotSecretsDeep(body, secretsOf(call), "[redacted]");
}
