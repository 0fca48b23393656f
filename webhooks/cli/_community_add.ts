// `communities add --name --tenant --base-url [--client-id --client-secret
// --access-token --refresh-token]`: adds a community, or updates the one
// stored under that tenant id (the fields given replace, the client id,
// secret and tokens not given are kept).

import { jsonText, printable, publicCommunity, quoted } from "./_format.ts";
import { flagError } from "./_flag_errors.ts";
import type { Community } from "../types.ts";
import type { Webhooks } from "../webhooks.ts";

/** What `communities add` takes of a command's context (the command table's own context has all of it). */
export interface AddContext {
  hooks: Webhooks;
  flags: Record<string, string | boolean | undefined>;
  json: boolean;
  out(text: string): void;
  err(text: string): void;
  secret(flag: string, variable: string): string | undefined;
}

/** The store's fields of a community that `communities add` takes from flags, to the flags. */
const COMMUNITY_FLAGS = {
  name: "name",
  tenantId: "tenant",
  baseUrl: "base-url",
  clientId: "client-id",
  clientSecret: "client-secret",
  "oauth.access_token": "access-token",
  "oauth.refresh_token": "refresh-token",
};

/** Adds (or updates) the community the flags describe, and says which. */
export async function addCommunity(ctx: AddContext, usage: (message: string) => Error): Promise<void> {
  const f = ctx.flags;
  const accessToken = ctx.secret("access-token", "ACCESS_TOKEN");
  const refreshToken = ctx.secret("refresh-token", "REFRESH_TOKEN");
  const clientSecret = ctx.secret("client-secret", "CLIENT_SECRET");
  const tenant = String(f.tenant);
  // The fields given on this call; on a stored tenant they replace its own, the others (client id, secret, tokens)
  // are kept: a script that re-runs add to fix a base URL must not lose the secret and tokens.
  const given = {
    name: String(f.name),
    tenantId: tenant,
    baseUrl: String(f["base-url"]),
    ...(typeof f["client-id"] === "string" ? { clientId: f["client-id"] } : {}),
    ...(clientSecret ? { clientSecret } : {}),
    ...(accessToken ? { oauth: { access_token: accessToken, refresh_token: refreshToken ?? "" } } : {}),
  } satisfies Community;
  // The store words a refused field "Cannot save community: '<field>' ..." on update and add alike (its one check).
  const refused = (error: unknown): never => {
    throw flagError(error, "save community", COMMUNITY_FLAGS, usage);
  };
  const before = await ctx.hooks.communities.secretRotation(tenant);
  // Updated when stored, else added; an add that finds one stored meanwhile (another add at once) updates it: of
  // two adds at once, whichever lands second merges into the first, and neither replaces the other whole.
  let renamedFrom: string | null = null;
  let clientFrom: string | null = null; // the stored client id, when another is given and its secret kept
  let moved: Moved | null = null; // the base URL's origins, when it moved to another and secrets were kept
  const merge = (current: Community): Community => {
    renamedFrom = current.name === given.name ? null : current.name;
    const changed = given.clientId !== undefined && current.clientId !== given.clientId;
    clientFrom = changed && !given.clientSecret && current.clientSecret ? current.clientId ?? "" : null;
    moved = movedWithSecrets(current, given);
    // New tokens make the stored renewal time stale: it told of the replaced ones.
    const { renewedAt: _renewedAt, ...kept } = current;
    return { ...(given.oauth ? kept : current), ...given };
  };
  let community: Community | null = null;
  let updated = false;
  // Bounded: each turn that finds neither is a community removed meanwhile, again and again.
  for (let turn = 0; turn < 5 && community === null; turn++) {
    community = await ctx.hooks.communities.update(tenant, merge).catch(refused);
    updated = community !== null;
    // None found: what a try of the update saw (before the community was removed) is not of the one added now.
    if (!updated) [renamedFrom, clientFrom, moved] = [null, null, null];
    if (community === null && await ctx.hooks.communities.add(given).catch(refused)) community = given;
  }
  if (community === null) {
    throw new Error(`Cannot save community ${quoted(given.name)}: it was removed meanwhile, retry`);
  }
  // Tokens are kept as a pair: the platform is called with the access token, renewed by the refresh token after a
  // 401, so one alone could never be used. Said, not refused: REFRESH_TOKEN may be set for the other commands.
  if (refreshToken && !accessToken) {
    const kept = updated ? " (the stored tokens are kept)" : "";
    const flag = typeof f["refresh-token"] === "string" ? "--refresh-token" : "REFRESH_TOKEN";
    ctx.err(
      `Warning: the refresh token (${flag}) was not stored${kept}: no access token was given (ACCESS_TOKEN or ` +
        "--access-token), and the platform is called with one; give both to store the pair",
    );
  }
  // A client secret is its client id's: kept beside another client id, that client's postbacks would not verify.
  if (clientFrom !== null) {
    const from = clientFrom === "" ? "none" : clientFrom;
    ctx.err(
      `Warning: the client id changed (${from} to ${given.clientId}) but the stored client secret was kept: give the` +
        " new client's secret too (CLIENT_SECRET or --client-secret), or its postbacks will not verify",
    );
  }
  // Kept on purpose (fixing a base URL keeps them), but no longer sent where they were issued for.
  if (moved !== null) ctx.err(movedLine(moved));
  // A changed secret of a stored community is a rotation: the replaced one still verifies for a while.
  const after = await ctx.hooks.communities.secretRotation(tenant);
  const rotation = after && after.rotatedAt !== before?.rotatedAt ? after : null;
  const renamed = renamedFrom === null ? "" : `, renamed from ${quoted(renamedFrom)}`;
  const value = { ...publicCommunity(community), ...(rotation ? { secretRotation: rotation } : {}) };
  ctx.out(
    ctx.json
      ? jsonText(value, 2)
      : `${updated ? "Updated" : "Added"} community ${quoted(community.name)} (tenant ${printable(tenant)})${renamed}` +
        (rotation ? `\nClient secret rotated: the previous one is still accepted until ${rotation.validUntil}` : ""),
  );
}

/** A base URL moved to another origin with secrets kept: the two origins, and which were kept. */
interface Moved {
  from: string;
  to: string;
  secret: boolean;
  tokens: boolean;
}

/**
 * Whether updating `current` with `given` sends a stored client secret or stored tokens to another origin (scheme,
 * host, port) than they went to: they are kept when not given. Origins alone are shown, never a path or query.
 */
function movedWithSecrets(current: Community, given: Community): Moved | null {
  // None stored before: the secrets went nowhere by it (a first base URL is a setup, not a move).
  if (current.baseUrl === undefined || given.baseUrl === undefined) return null;
  const from = URL.parse(current.baseUrl)?.origin ?? "an unreadable base URL";
  const to = URL.parse(given.baseUrl)?.origin ?? given.baseUrl;
  const secret = !given.clientSecret && Boolean(current.clientSecret);
  const tokens = !given.oauth && Boolean(current.oauth?.access_token || current.oauth?.refresh_token);
  return from === to || !(secret || tokens) ? null : { from, to, secret, tokens };
}

/** The warning of a move: what goes to the new origin, and how to give its own instead. Never a secret's value. */
function movedLine({ from, to, secret, tokens }: Moved): string {
  const kept = secret && tokens ? "client secret and tokens were" : secret ? "client secret was" : "tokens were";
  const sent = [
    ...(secret ? ["the client secret at its token endpoint"] : []),
    ...(tokens ? ["the access token with each API call, the refresh token when it renews"] : []),
  ];
  const give = [
    ...(secret ? ["CLIENT_SECRET (or --client-secret)"] : []),
    ...(tokens ? ["ACCESS_TOKEN and REFRESH_TOKEN (or --access-token and --refresh-token)"] : []),
  ];
  return `Warning: the base URL moved from ${from} to ${to} and the stored ${kept} kept: ${to} gets them ` +
    `(${sent.join("; ")}); if it is not the same platform, give its own: ${give.join(" and ")}`;
}
