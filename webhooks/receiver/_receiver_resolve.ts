// What the receiver decides from KV once a header has parsed: the tenant's
// community (verified against the header), each item's record among the
// tenant's hooks, and the replay claim. Hits in the receiver's cache cost no
// read; the claim's commit then checks that every cached entry is still
// current, and a `"stale"` outcome makes the receiver decide again from fresh
// reads. A negative answer (404) is never given on cached data alone. A header
// that the community's current secret does not verify is tried with its
// previous secret while a rotation keeps that one valid (_secret_rotation.ts);
// the claim's commit then checks the rotation entry too.

import { type HeldClaim, MAX_COMMIT_CHECKS, type NotClaimed, release } from "./claim/mod.ts";
import { copyData } from "./_copy.ts";
import { MAX_TENANT_ID_BYTES } from "../kv/mod.ts";
import { checkSignature, type ParsedJiveExtn, verifyingKey } from "../signature/mod.ts";
import { type BodyItem, urlsOf } from "./_receive.ts";
import { type CachedCommunity, readCommunity, readRecord, ReceiverCache, stillCurrent } from "./_receiver_cache.ts";
import type { Community, Webhook } from "../types.ts";
import type { Webhooks } from "../webhooks.ts";
import type { ReceiverOptions } from "./receiver_types.ts";

/**
 * Longest tenant id looked up: the longest a community may have (what the keys of its webhooks hold, 1,999 bytes),
 * so that every community saved receives; one longer names none and is refused without a read.
 */
const MAX_TENANT_BYTES = MAX_TENANT_ID_BYTES;
/** The reason of a 401 for a community whose secret cannot verify any header (none stored, or not base64). */
export const NO_VERIFYING_SECRET = "The community's client secret cannot verify signatures";
/** The reason of a 401 for a tenant whose community's key holds something else than its community. */
export const DAMAGED_COMMUNITY = "The stored community of this tenant is damaged (not a community record)";
/** The 401 answer of every check that depends on the community, so tenants cannot be probed. */
const NOT_VERIFIED = "JiveEXTN signature does not match";
/**
 * Most hooks a postback may name for its cached entries to be checked in the
 * claim's commit: a claim key, a record check per hook, the community's and a
 * sequence counter's stay within the ten checks KV Connect takes. With the
 * rotation entry's check too (the previous secret verified), one hook less.
 */
const MAX_CHECKED_HOOKS = 4;
const encoder = new TextEncoder();

/** The tenant's community, verified against the header. */
export interface Resolved {
  value: Community;
  /**
   * What the verification rests on: the community's key and versionstamp as
   * read, and the rotation entry's when its previous secret verified; none
   * when read through `hooks` (no KV of its own).
   */
  checks: Deno.AtomicCheck[];
  /** Whether it came from the cache (not read for this request). */
  cached: boolean;
}

/** A community as read: from KV with its checks, or through `hooks` without them (and with no previous secret). */
type ReadCommunity = Omit<CachedCommunity, "check" | "previousCheck"> & {
  check: Deno.AtomicCheck | null;
  previousCheck: Deno.AtomicCheck | null;
};

/** A 401 refusal: the answer's error and the reason reported. */
export interface Unverified {
  error: string;
  reason: string;
}

/** What looking up the items and claiming the header came to. */
export type Outcome =
  | {
    kind: "go";
    community: Community;
    webhooks: Webhook[];
    /** The claim, when one was taken. */
    held?: HeldClaim | "done" | "held";
    /** Without a claim taken: the checks a commit that claims must carry. */
    checks: Deno.AtomicCheck[];
  }
  | { kind: "unknown"; error: string }
  | { kind: "stale" };

/** The parts of `createReceiver`'s setup the resolver needs. */
export interface ResolverSetup {
  hooks: Webhooks;
  kv: Deno.Kv;
  /** Whether `kv` is the KV `hooks` was made over, so its keys can be read and checked. */
  owned: boolean;
  accept: ReceiverOptions["accept"];
}

/** A value as read; its check is `null` when read through `hooks`. */
type Checked<T> = { value: T; check: Deno.AtomicCheck | null };

/** A receiver's resolver. */
export type Resolver = ReturnType<typeof createResolver>;

/** The claim being taken, settled without throwing. */
type Claiming = Promise<{ held: HeldClaim | NotClaimed | null; error: unknown }>;

/** Takes the claim with these checks in its commit. */
export type Take = (checks: Deno.AtomicCheck[]) => Promise<HeldClaim | NotClaimed>;

/** Makes the resolver of one receiver, with its cache. */
export function createResolver({ hooks, kv, owned, accept }: ResolverSetup) {
  const cache = new ReceiverCache();

  async function readFresh(tenantId: string): Promise<ReadCommunity | "damaged" | null> {
    if (encoder.encode(tenantId).byteLength > MAX_TENANT_BYTES) return null;
    if (owned) return await readCommunity(kv, tenantId);
    const value = await hooks.communities.findByTenantID(tenantId);
    return value &&
      { value, check: null, keyBytes: verifyingKey(value.clientSecret), previous: null, previousCheck: null };
  }

  /**
   * The tenant's community, from the cache when the header verifies there,
   * else read and verified; `now` (the receiver's clock) decides whether a
   * previous secret is still valid.
   */
  async function community(parsed: ParsedJiveExtn, useCache: boolean, now: number): Promise<Resolved | Unverified> {
    const hit = useCache ? cache.community(parsed.tenantId) : undefined;
    if (hit) {
      const by = verifiedBy(parsed, hit, now);
      if (typeof by === "string") return resolvedBy(hit, by, true);
    }
    const unverified = (reason: string): Unverified => ({ error: `Unauthorized: ${NOT_VERIFIED}`, reason });
    const read = await readFresh(parsed.tenantId);
    if (!read) return unverified("No community has this tenant id");
    if (read === "damaged") return unverified(DAMAGED_COMMUNITY);
    const by = verifiedBy(parsed, read, now);
    if (typeof by !== "string") return unverified(by.reason);
    if (read.check && read.previousCheck) {
      cache.rememberCommunity(parsed.tenantId, { ...read, check: read.check, previousCheck: read.previousCheck });
    }
    return resolvedBy(read, by, false);
  }

  async function readRecords(tenantId: string, urls: string[]): Promise<(Checked<Webhook> | null)[]> {
    return await Promise.all(urls.map(async (url) => {
      if (!owned) {
        const found = (await hooks.findByWebhookURL(url)).find((record) => record.tenantId === tenantId);
        return found ? { value: found, check: null } : null;
      }
      const read = await readRecord(kv, tenantId, url);
      if (read) cache.rememberRecord(tenantId, url, read);
      return read;
    }));
  }

  /**
   * Looks every item's record up and claims the header. Cached records are
   * claimed with checks; otherwise the claim is taken while they are read
   * (one KV round trip less) and released when the answer is 404. Without
   * `take` nothing is claimed: the outcome names the checks to commit with.
   */
  async function lookUpAndClaim(
    request: Request,
    resolved: Resolved,
    tenantId: string,
    items: BodyItem[],
    take: Take | null,
    useChecks: boolean,
  ): Promise<Outcome> {
    const urls = urlsOf(items);
    const checking = useChecks && urls.length <= checkedHooks(resolved);
    const cached = owned && checking ? urls.map((url) => cache.record(tenantId, url)) : [];
    const hit = urls.length > 0 && cached.length === urls.length && cached.every((entry) => entry !== undefined);
    const communityChecks = checking ? resolved.checks : [];
    // Without cached records the claim is taken while they are read; from here until it is handed on,
    // anything that throws (reading, `accept`) releases it, so the platform's retry is delivered.
    const claiming: Claiming | undefined = hit || take === null ? undefined : settle(take(communityChecks));
    try {
      const records = hit ? cached : await readRecords(tenantId, urls);
      return await settleOutcome(request, resolved, items, urls, records, hit, communityChecks, claiming, take);
    } catch (error) {
      if (claiming) await releaseHeld(claiming);
      throw error;
    }
  }

  /** The outcome once the records are known: 404, stale, or the claim held with the copies to hand on. */
  async function settleOutcome(
    request: Request,
    resolved: Resolved,
    items: BodyItem[],
    urls: string[],
    records: (Checked<Webhook> | null | undefined)[],
    hit: boolean,
    communityChecks: Deno.AtomicCheck[],
    claiming: Claiming | undefined,
    take: Take | null,
  ): Promise<Outcome> {
    /** A 404, unless it rests on cached data that changed meanwhile. */
    const refuse = async (error: string): Promise<Outcome> => {
      if (claiming) await releaseHeld(claiming);
      const used = [...(resolved.cached ? communityChecks : []), ...(hit ? records.map((r) => r!.check!) : [])];
      return owned && !(await stillCurrent(kv, used)) ? { kind: "stale" } : { kind: "unknown", error };
    };
    // Each item's place in `urls`; with one hook (the common case) always 0, and no Map to build.
    const places = urls.length === 1 ? null : new Map(urls.map((url, i) => [url, i]));
    const placeOf = (item: BodyItem) => places === null ? 0 : places.get(item.webhook)!;
    const unknown = items.findIndex((item) => !records[placeOf(item)]);
    if (unknown !== -1) return await refuse(`Unknown webhook: item ${unknown} names no webhook of this community`);
    const community = owned ? copyData(resolved.value) : resolved.value;
    // One copy per hook, shared by its items.
    const copies = records.map((record) => owned ? copyData(record!.value) : record!.value);
    const webhooks = items.map((item) => copies[placeOf(item)]);
    if (accept && !(await accept({ request, community, webhooks }))) {
      return await refuse("Unknown webhook: this endpoint does not take these webhooks");
    }
    const recordChecks = communityChecks.length === 0 ? [] : records.flatMap((r) => r!.check ? [r!.check] : []);
    if (take === null) return { kind: "go", community, webhooks, checks: [...communityChecks, ...recordChecks] };
    const { held, error } = await (claiming ?? settle(take([...communityChecks, ...recordChecks])));
    if (error !== undefined) throw error;
    if (held === "stale" || held === null) return { kind: "stale" };
    return { kind: "go", community, webhooks, held, checks: [] };
  }

  /** Forgets what a stale outcome rested on. */
  function forget(tenantId: string, items: BodyItem[]): void {
    cache.forget(tenantId, items.map((item) => item.webhook));
  }

  async function releaseHeld(claiming: Claiming): Promise<void> {
    const { held } = await claiming;
    if (typeof held === "object" && held !== null) await release(kv, held).catch(() => {});
  }

  return { community, lookUpAndClaim, forget };
}

/**
 * Which secret of a community verifies a header at `now`: the current one;
 * else the previous one while a rotation keeps it valid, in constant time
 * like the current; else why neither does (for the report, never the answer).
 */
function verifiedBy(parsed: ParsedJiveExtn, read: ReadCommunity, now: number): "current" | "previous" | {
  reason: string;
} {
  const current = read.keyBytes && checkSignature(parsed, read.keyBytes);
  if (read.keyBytes && current === null) {
    return parsed.clientId === read.value.clientId ? "current" : { reason: "The client id is not the community's" };
  }
  const previous = read.previous;
  if (previous?.keyBytes && checkSignature(parsed, previous.keyBytes) === null) {
    if (now > previous.validUntil) {
      const until = new Date(previous.validUntil).toISOString();
      return { reason: `JiveEXTN signature matches the community's previous client secret, accepted until ${until}` };
    }
    return parsed.clientId === previous.clientId ? "previous" : { reason: "The client id is not the community's" };
  }
  return { reason: current ? current.reason : NO_VERIFYING_SECRET };
}

/** The resolved community and the checks its verification rests on. */
function resolvedBy(read: ReadCommunity, by: "current" | "previous", cached: boolean): Resolved {
  const checks = read.check === null ? [] : [read.check];
  if (by === "previous" && read.previousCheck) checks.push(read.previousCheck);
  return { value: read.value, checks, cached };
}

/** How many hooks' cached entries the claim's commit can check beside the community's checks. */
function checkedHooks(resolved: Resolved): number {
  // Per hook a claim key and a record check; then the community's checks and a sequence counter.
  return Math.min(MAX_CHECKED_HOOKS, Math.floor((MAX_COMMIT_CHECKS - 1 - resolved.checks.length) / 2));
}

function settle(taking: Promise<HeldClaim | NotClaimed>): Claiming {
  return taking.then((held) => ({ held, error: undefined }), (error: unknown) => ({ held: null, error }));
}
