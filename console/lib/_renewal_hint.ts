// What the user can do when the platform refused a token renewal: a refresh
// token it no longer takes (spent by a renewal whose answer was lost, say a
// console killed before it stored the new pair, or revoked) leaves the
// community without tokens that work until it is connected again; refused
// client credentials need the client id and secret put right first. Neither
// is said by the platform's own words ("invalid_grant").

import { PlatformError } from "../../webhooks/mod.ts";

/** The next step after `err`, when it is a token renewal the platform refused; else `""`. */
export function renewalHint(err: unknown): string {
  if (!(err instanceof PlatformError) || err.method !== "POST" || !/\/oauth2\/token$/.test(err.url)) return "";
  if (err.status !== 400 && err.status !== 401) return "";
  const code = (err.body as { error?: unknown } | null)?.error;
  if (code === "invalid_client" || (err.status === 401 && code !== "invalid_grant")) {
    return " (the platform refused the community's client id or secret: put them right on the community's page, " +
      "then connect the community again with Connect)";
  }
  return " (the platform no longer takes the community's stored refresh token, spent or revoked: connect the " +
    "community again with Connect on its page to store new tokens)";
}
