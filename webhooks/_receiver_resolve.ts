// What the receiver decides from KV once a header has parsed: the tenant's
// community (verified against the header), each item's record among the
// tenant's hooks, and the replay claim. Hits in the receiver's cache cost no
// read; the claim's commit then checks that every cached entry is still
// current, and a `"stale"` outcome makes the receiver decide again from fresh
// reads. A negative answer (404) is never given on cached data alone.

import { type HeldClaim, type NotClaimed, release } from "./_claim.ts";
import { checkSignature, type ParsedJiveExtn, secretKeyBytes } from "./_jive_extn.ts";
import type { BodyItem } from "./_receive.ts";
import { readCommunity, readRecord, ReceiverCache, stillCurrent } from "./_receiver_cache.ts";
import type { Community, Webhook } from "./types.ts";
import type { Webhooks } from "./webhooks.ts";
import type { ReceiverOptions } from "./receiver_types.ts";

/** Longest tenant id looked up (a KV key holds 2048 bytes). */
const MAX_TENANT_BYTES = 1024;
/** The 401 answer of every check that depends on the community, so tenants cannot be probed. */
const NOT_VERIFIED = "JiveEXTN signature does not match";
/**
 * Most hooks a postback may name for its cached entries to be checked in the
 * claim's commit: a claim key, a record check per hook, the community's and a
 * sequence counter's stay within the ten checks KV Connect takes.
 */
const MAX_CHECKED_HOOKS = 4;
const encoder = new TextEncoder();

/** The tenant's community, verified against the header. */
export interface Resolved {
  value: Community;
  /** Its key and versionstamp as read; `null` when read through `hooks` (no KV of its own). */
  check: Deno.AtomicCheck | null;
  keyBytes: Uint8Array;
  /** Whether it came from the cache (not read for this request). */
  cached: boolean;
}

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

  async function readFresh(tenantId: string): Promise<Checked<Community> | null> {
    if (encoder.encode(tenantId).byteLength > MAX_TENANT_BYTES) return null;
    if (owned) return await readCommunity(kv, tenantId);
    const value = await hooks.communities.findByTenantID(tenantId);
    return value && { value, check: null };
  }

  /** The tenant's community, from the cache when the header verifies there, else read and verified. */
  async function community(parsed: ParsedJiveExtn, useCache: boolean): Promise<Resolved | Unverified> {
    const hit = useCache ? cache.community(parsed.tenantId) : undefined;
    if (hit && parsed.clientId === hit.value.clientId && checkSignature(parsed, hit.keyBytes) === null) {
      return { ...hit, cached: true };
    }
    const unverified = (reason: string): Unverified => ({ error: `Unauthorized: ${NOT_VERIFIED}`, reason });
    const read = await readFresh(parsed.tenantId);
    if (!read) return unverified("No community has this tenant id");
    let keyBytes: Uint8Array;
    try {
      keyBytes = secretKeyBytes(read.value.clientSecret, "verify");
    } catch {
      return unverified("The community's client secret cannot verify signatures");
    }
    const refused = checkSignature(parsed, keyBytes);
    if (refused) return { error: `Unauthorized: ${refused.reason}`, reason: refused.reason };
    if (parsed.clientId !== read.value.clientId) return unverified("The client id is not the community's");
    if (read.check) cache.rememberCommunity(parsed.tenantId, { value: read.value, check: read.check, keyBytes });
    return { value: read.value, check: read.check, keyBytes, cached: false };
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
    const urls = [...new Set(items.map((item) => item.webhook))];
    const checking = useChecks && urls.length <= MAX_CHECKED_HOOKS;
    const cached = owned && checking ? urls.map((url) => cache.record(tenantId, url)) : [];
    const hit = urls.length > 0 && cached.length === urls.length && cached.every((entry) => entry !== undefined);
    const communityChecks = checking && resolved.check ? [resolved.check] : [];
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
    const byUrl = new Map(urls.map((url, i) => [url, records[i]]));
    const used = [...(resolved.cached ? communityChecks : []), ...(hit ? records.map((r) => r!.check!) : [])];
    /** A 404, unless it rests on cached data that changed meanwhile. */
    const refuse = async (error: string): Promise<Outcome> => {
      if (claiming) await releaseHeld(claiming);
      return owned && !(await stillCurrent(kv, used)) ? { kind: "stale" } : { kind: "unknown", error };
    };
    const unknown = items.findIndex((item) => !byUrl.get(item.webhook));
    if (unknown !== -1) return await refuse(`Unknown webhook: item ${unknown} names no webhook of this community`);
    const community = owned ? structuredClone(resolved.value) : resolved.value;
    const copies = new Map(urls.map((url) => {
      const record = byUrl.get(url)!.value;
      return [url, owned ? structuredClone(record) : record];
    }));
    const webhooks = items.map((item) => copies.get(item.webhook)!);
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

function settle(taking: Promise<HeldClaim | NotClaimed>): Claiming {
  return taking.then((held) => ({ held, error: undefined }), (error: unknown) => ({ held: null, error }));
}
