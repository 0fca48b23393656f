// Argument checks of `communities.save`, done before anything is read.

import { baseUrlTailProblem, describe, requireKeyString, requireString } from "../_util.ts";
import { communityByNameKey, keyFits, MAX_TENANT_ID_BYTES, MAX_VALUE_BYTES, webhookByTenantKey } from "../kv/mod.ts";
import type { Community } from "../types.ts";

/** Throws a `TypeError` naming the first bad field of a community; a secret's value is never shown. */
export function validateCommunity(community: Community): void {
  const action = "save community";
  if (typeof community !== "object" || community === null || Array.isArray(community)) {
    throw new TypeError(`Cannot ${action}: the community must be an object, got ${describe(community)}`);
  }
  // KV keys the record by these: a lone surrogate would share a key with another tenant's (or name's).
  requireKeyString(community.name, "name", action);
  requireKeyString(community.tenantId, "tenantId", action);
  if (!keyFits(webhookByTenantKey(community.tenantId, "0".repeat(26)))) { // a hook's tenant index entry, its id a ULID
    throw new RangeError(
      `Cannot ${action}: 'tenantId' is too long for the keys of its webhooks (at most ${MAX_TENANT_ID_BYTES} bytes ` +
        `in UTF-8, a NUL counted twice), got ${describe(community.tenantId)}`,
    );
  }
  // The name keys its pointer to the tenant: one too long is refused here, naming the field, not by KV's commit.
  if (!keyFits(communityByNameKey(community.name))) {
    throw new RangeError(
      `Cannot ${action}: 'name' is too long for its KV key (2 KiB in all, in UTF-8), got ${describe(community.name)}`,
    );
  }
  // baseUrl is needed for platform calls only, and checked again then.
  if (community.baseUrl !== undefined) {
    const url = URL.parse(String(community.baseUrl));
    if (url === null || !/^https?:$/.test(url.protocol)) {
      throw new TypeError(
        `Cannot ${action}: 'baseUrl' must be an absolute http(s) URL, got ${describe(community.baseUrl)}`,
      );
    }
    const tail = baseUrlTailProblem(String(community.baseUrl));
    if (tail !== undefined) throw new TypeError(`Cannot ${action}: ${tail}`);
    // A password in the URL would show wherever the community does (lists, pages, the CLI's table); the URL is
    // not echoed here for the same reason. The platform is reached with the community's OAuth tokens.
    if (url.username !== "" || url.password !== "") {
      throw new TypeError(
        `Cannot ${action}: 'baseUrl' must not carry a user name or password (${url.host} was given with them); ` +
          "the platform is reached with the community's OAuth tokens",
      );
    }
  }
  for (const field of ["clientId", "clientSecret"] as const) {
    if (community[field] !== undefined) requireString(community[field], field, action);
  }
  if (community.oauth !== undefined) {
    if (typeof community.oauth !== "object" || community.oauth === null) {
      throw new TypeError(`Cannot ${action}: 'oauth' must be an object with access_token and refresh_token`);
    }
    // Token values are secrets: name the field, never show the value.
    for (const field of ["access_token", "refresh_token"] as const) {
      const value = community.oauth[field];
      if (value !== undefined && typeof value !== "string") {
        throw new TypeError(`Cannot ${action}: 'oauth.${field}' must be a string`);
      }
    }
  }
}

/**
 * `error` (as the KV plumbing's `sizeError` words it) said as the field of `community` that makes it too large for
 * one KV value: the largest one as stored, `Cannot save community: '<field>' is too long ...`, its value never
 * shown. Any other error (a key too long, KV failing) is returned as it is.
 */
export function communitySizeError(error: unknown, community: Community): unknown {
  if (!(error instanceof RangeError) || !/larger than the \d+ bytes one KV value holds/.test(error.message)) {
    return error;
  }
  const sizes: [string, number][] = [];
  for (const [field, value] of Object.entries(community)) {
    if (field === "oauth" && typeof value === "object" && value !== null) {
      for (const [inner, token] of Object.entries(value)) sizes.push([`oauth.${inner}`, storedBytes(token)]);
    } else sizes.push([field, storedBytes(value)]);
  }
  const [field] = sizes.reduce((a, b) => (b[1] > a[1] ? b : a), ["", 0]);
  if (field === "") return error;
  return new RangeError(
    `Cannot save community: '${field}' is too long: the community would be larger than the ${MAX_VALUE_BYTES} ` +
      "bytes one KV value holds",
  );
}

/**
 * About how many bytes `value` takes in a KV value, as V8 serialises it (what KV measures): a string one byte a
 * character when all are Latin-1, else two (not UTF-8 JSON, where 'é' takes two and '"' two); other leaves a few.
 */
function storedBytes(value: unknown): number {
  if (typeof value === "string") return (/[^\0-\xff]/.test(value) ? 2 : 1) * value.length;
  if (typeof value !== "object" || value === null) return 8;
  let bytes = 0;
  for (const [key, inner] of Object.entries(value)) bytes += storedBytes(key) + storedBytes(inner);
  return bytes;
}
