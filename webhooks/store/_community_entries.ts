// Every record stored under the communities' prefix, a damaged one too (edited by hand, or by a buggy older tool,
// into something `save` never writes): what `communities.list` passes over, for the command line, which must show an
// operator that something is stored under a tenant id and what is wrong with it. What is wrong is named field by
// field and never quotes a value (a secret may be among them).

import { COMMUNITY_PREFIX, withLockRetry } from "../kv/mod.ts";

/** One entry under the communities' prefix: the tenant id of its key, what it holds, and what is wrong with it. */
export interface CommunityEntry {
  /** The tenant id its key names. */
  tenantId: string;
  /** The value stored, as KV gives it back. */
  stored: unknown;
  /** What is wrong with it (`'name' must be a non-empty string, got an object`); `null` when it is whole. */
  damaged: string | null;
}

/** A value's kind, as a message says it: the value itself is never shown. */
function kind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The faults of an optional field: none when absent, else one when it is not a string. */
function optionalString(record: Record<string, unknown>, name: string): string[] {
  const value = record[name];
  return value === undefined || typeof value === "string" ? [] : [`'${name}' must be a string, got ${kind(value)}`];
}

/**
 * What is wrong with the record stored at the key of tenant `tenantId`, each fault named and joined by `; `; `null`
 * when it has the shape `save` writes. Only its shape is checked: a base URL that does not parse fails the platform
 * call that needs it, saying so.
 *
 * @param tenantId the tenant id of its key
 * @param stored the value stored there
 * @returns what is wrong, or `null`
 */
export function communityDamage(tenantId: string, stored: unknown): string | null {
  if (!isObject(stored)) return `it is ${kind(stored)}, not a community record`;
  const faults: string[] = [];
  if (stored.tenantId === undefined) faults.push("'tenantId' is missing");
  else if (stored.tenantId !== tenantId) {
    faults.push(
      `'tenantId' must be the tenant id of its key, got ${
        typeof stored.tenantId === "string" ? "another tenant's" : kind(stored.tenantId)
      }`,
    );
  }
  if (stored.name === undefined) faults.push("'name' is missing");
  else if (typeof stored.name !== "string" || stored.name === "") {
    faults.push(`'name' must be a non-empty string, got ${stored.name === "" ? "an empty one" : kind(stored.name)}`);
  }
  for (const name of ["baseUrl", "clientId", "clientSecret", "renewedAt"]) faults.push(...optionalString(stored, name));
  if (stored.oauth !== undefined) {
    if (!isObject(stored.oauth)) faults.push(`'oauth' must be an object, got ${kind(stored.oauth)}`);
    else {
      for (const token of ["access_token", "refresh_token"]) {
        faults.push(...optionalString(stored.oauth, token).map((f) => f.replace(`'${token}'`, `'oauth.${token}'`)));
      }
    }
  }
  return faults.length === 0 ? null : faults.join("; ");
}

/**
 * A page of the entries under the communities' prefix, in key order, each as {@linkcode CommunityEntry}; a key that
 * names no tenant id (`["community", 42]`, `["community", id, "x"]`) is one no call can name, and is not listed.
 *
 * @param kv the KV
 * @param limit the most entries a page reads
 * @param cursor KV's cursor of the page before; absent for the first
 * @returns the page and KV's cursor of the next (`""` on the last)
 */
export async function listCommunityEntries(
  kv: Deno.Kv,
  limit: number,
  cursor?: string,
): Promise<{ values: CommunityEntry[]; cursor: string }> {
  return await withLockRetry(async () => {
    const iter = kv.list({ prefix: COMMUNITY_PREFIX }, { limit, cursor });
    const values: CommunityEntry[] = [];
    let read = 0;
    for await (const { key, value } of iter) {
      read++;
      if (key.length !== 2 || typeof key[1] !== "string") continue;
      values.push({ tenantId: key[1], stored: value, damaged: communityDamage(key[1], value) });
    }
    return { values, cursor: read < limit ? "" : iter.cursor };
  });
}
