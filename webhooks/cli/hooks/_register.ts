// `hooks register --community NAME --events a,b [--object URL] --callback URL [--again]`: `register`, once no
// registration of the same request is left unfinished. A register killed mid-way (Ctrl-C during the platform call, a
// lost SSH session, kill -9) leaves its pending entry, and maybe its hook on the platform; the same command run
// again, as anyone would, made a second hook with the same callback, object and events, and `reconcile --fix` then
// adopted the first as well: the app got every postback twice. So a pending entry of the same request (matched as
// reconcile matches one to an orphan) refuses the command, saying what to do; `--again` registers regardless.
// Two commands of one request at the same instant would both pass that check: a claim of the request
// (_register_claim.ts) lets one through. A registered callback a platform on the internet cannot post to is then
// warned of on stderr (_callback_reach.ts).

import { commaList, jsonText, quoted } from "../_format.ts";
import { shownEntity, shownHook, shownUrl } from "../_shown.ts";
import { flagError } from "../_flag_errors.ts";
import { callbackWarning } from "./_callback_reach.ts";
import { CLAIM_MS, claimRegistration, type ClaimResult } from "./_register_claim.ts";
import { sameRequest, STALE_AFTER_MS } from "../../platform/mod.ts";
import type { Community, PendingRegistration } from "../../types.ts";
import type { Webhooks } from "../../webhooks.ts";

/** What `hooks register` takes of a command's context (the command table's own context has all of it). */
export interface RegisterContext {
  hooks: Webhooks;
  /** The KV of `hooks`: the claim of the request is kept there. */
  kv: Deno.Kv;
  flags: Record<string, string | boolean | undefined>;
  json: boolean;
  out(text: string): void;
  /** A line on stderr: the warning of a callback a platform on the internet cannot reach. */
  err(text: string): void;
  secret(flag: string, variable: string): string | undefined;
}

/** The options of `register` that `hooks register` takes from flags, to the flags. */
const REGISTER_FLAGS = {
  community: "community",
  events: "events",
  object: "object",
  callback: "callback",
  accessToken: "access-token",
  refreshToken: "refresh-token",
};

/** Runs `hooks register`; `usage` makes a usage error (status 2) of a message. */
export async function registerCommand(ctx: RegisterContext, usage: (message: string) => Error): Promise<void> {
  const f = ctx.flags;
  // A set: one named twice is sent once.
  const events = commaList(String(f.events));
  if (events.length === 0) throw usage("--events needs one or more event names, separated by commas");
  const request = {
    community: String(f.community),
    events,
    ...(typeof f.object === "string" ? { object: f.object } : {}),
    callback: String(f.callback),
  };
  // Read first: a secret refused (a control character in it) is a usage error whatever is stored.
  const accessToken = ctx.secret("access-token", "ACCESS_TOKEN");
  const refreshToken = ctx.secret("refresh-token", "REFRESH_TOKEN");
  const claim = f.again === true
    ? null
    : await refuseUnfinishedOrClaim(ctx, request, typeof f.kv === "string" ? f.kv : undefined);
  let response;
  try {
    response = await ctx.hooks.register({ ...request, accessToken, refreshToken }).catch((error) => {
      throw flagError(error, "register webhook", REGISTER_FLAGS, usage);
    });
  } finally {
    // A claim not deleted (the KV gone meanwhile) lapses on its own: the register's outcome stands.
    if (claim?.ok) await claim.release().catch(() => {});
  }
  const ref = response.entity.resources?.self?.ref;
  const [record] = ref ? await ctx.hooks.findByWebhookURL(ref) : [];
  const value = {
    status: response.status,
    entity: shownEntity(response.entity),
    record: record ? shownHook(record) : null,
  };
  ctx.out(
    ctx.json
      ? jsonText(value, 2)
      : `Registered webhook ${response.entity.id ?? ""} (${ref ? shownUrl(ref) : "no URL"}) as record ${
        record?.id ?? "?"
      }`,
  );
  // After the result, never instead of it: registered all the same (API.md), stdout and the status unchanged.
  const warning = await callbackWarning(request.callback);
  if (warning !== undefined) ctx.err(warning);
}

/**
 * Claims the request for this command and throws (a failed operation, status 1) when another command holds the
 * claim (it is registering the same request now), or when the community has a pending entry of the same callback,
 * object and events: a registration that began and did not finish, whose hook may be on the platform. A community
 * not found is left to `register`, which says so in SPEC.md's words (no claim, `null`).
 */
async function refuseUnfinishedOrClaim(
  ctx: RegisterContext,
  request: { community: string; events: string[]; object?: string; callback: string },
  kvFlag: string | undefined,
): Promise<ClaimResult | null> {
  const community = await ctx.hooks.communities.findByName(request.community);
  if (community === null) return null;
  const claim = await claimRegistration(ctx.kv, community.tenantId, request);
  try {
    // A pending entry is said first, claim or not: its message covers a command still running, and one killed
    // mid-way (Ctrl-C or kill -9 while the platform held its answer) leaves its claim until it lapses.
    await refuseUnfinished(ctx.hooks, community, request, kvFlag);
  } catch (error) {
    if (claim.ok) await claim.release().catch(() => {});
    throw error;
  }
  if (!claim.ok) throw new Error(runningMessage(claim.startedAt, Date.now()));
  return claim;
}

/** Throws when the community has a pending entry of the same callback, object and events (see above). */
async function refuseUnfinished(
  hooks: Webhooks,
  community: Community,
  request: { events: string[]; object?: string; callback: string },
  kvFlag: string | undefined,
): Promise<void> {
  const pendings = await hooks.pending(community.tenantId);
  const asked = { callback: request.callback, object: request.object, events: request.events };
  const same = pendings.filter((p) => sameRequest(p, asked));
  if (same.length === 0) return;
  // The newest says when to run reconcile: the older ones are adoptable by then as well.
  const newest = same.reduce((a, b) => (b.startedAt > a.startedAt ? b : a));
  throw new Error(unfinishedMessage(newest, community.name, Date.now(), kvFlag));
}

/** What the operator is told when another command holds the claim of the same request, claimed at `startedAt`. */
function runningMessage(startedAt: number, now: number): string {
  const age = Math.max(0, Math.floor((now - startedAt) / 1000));
  const lapse = Math.max(0, Math.ceil((startedAt + CLAIM_MS - now) / 1000));
  return `a registration of this callback (same object and events) is running now in another command (began at ${
    shownTime(startedAt)
  }, ${age} s ago; if that command was killed, its claim lapses in ${lapse} s): registering it as well would make ` +
    "a second hook, every postback reaching the app twice. Wait for it to end and run this again, or give --again " +
    "to register another hook anyway";
}

/** A time in ms as ISO 8601, or as ms when no Date can show it (an entry edited by hand). */
function shownTime(ms: number): string {
  const at = new Date(ms);
  return Number.isNaN(at.getTime()) ? `${ms} ms` : at.toISOString();
}

/**
 * What the operator is told of `pending`, an unfinished registration of the same request, at `now`. The command it
 * names carries the register's own `--kv` (its user info shown as `***`), so that, copied, it runs on the same KV and
 * not on `./webhooks.kv`; a KV named by `KV_PATH` is found again without it.
 */
function unfinishedMessage(pending: PendingRegistration, name: string, now: number, kvFlag?: string): string {
  const age = Math.max(0, Math.floor((now - pending.startedAt) / 1000));
  const wait = Math.ceil((pending.startedAt + STALE_AFTER_MS - now) / 1000);
  const shell = (word: string) => /^[\w.@+\/:=-]+$/.test(word) ? word : quoted(word);
  const shellName = shell(name);
  const kv = kvFlag === undefined ? "" : ` --kv ${shell(shownUrl(kvFlag))}`;
  return `a registration of this callback (same object and events) began at ${
    shownTime(pending.startedAt)
  } (${age} s ago) and did not finish (its process ended mid-way, the platform's answer was lost, or it is still running): ` +
    "its hook may already exist on the platform, and registering again would make a second one, every postback " +
    `reaching the app twice. Run deno task cli reconcile ${shellName} --fix${kv}${wait > 0 ? ` in ${wait} s` : ""} ` +
    "(it adopts that hook, or clears the entry when the platform has none, once the entry is a minute old), " +
    "or give --again to register another hook anyway";
}
