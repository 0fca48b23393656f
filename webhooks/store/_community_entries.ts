// Every record stored under the communities' prefix, a damaged one too (edited by hand, or by a buggy older tool,
// into something `save` never writes): what `communities.list` passes over, for the command line, which must show an
// operator that something is stored under a tenant id and what is wrong with it. What is wrong is named field by
// field and never quotes a value (a secret may be among them).

import { COMMUNITY_PREFIX } from "../kv/mod.ts";
import { keyedEntries } from "./_entry_pages.ts";
import { kindOf } from "../_util.ts";

/** One entry under the communities' prefix: the tenant id of its key, what it holds, and what is wrong with it. */
export interface CommunityEntry {
  /** The tenant id its key names. */
  tenantId: string;
  /** The value stored, as KV gives it back. */
  stored: unknown;
  /** What is wrong with it (`'name' must be a non-empty string, got an object`); `null` when it is whole. */
  damaged: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The faults of an optional field: none when absent, else one when it is not a string. */
function optionalString(record: Record<string, unknown>, name: string): string[] {
  const value = record[name];
  return value === undefined || typeof value === "string" ? [] : [`'${name}' must be a string, got ${kindOf(value)}`];
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
  if (!isObject(stored)) return `it is ${kindOf(stored)}, not a community record`;
  const faults: string[] = [];
  if (stored.tenantId === undefined) faults.push("'tenantId' is missing");
  else if (stored.tenantId !== tenantId) {
    faults.push(
      `'tenantId' must be the tenant id of its key, got ${
        typeof stored.tenantId === "string" ? "another tenant's" : kindOf(stored.tenantId)
      }`,
    );
  }
  if (stored.name === undefined) faults.push("'name' is missing");
  else if (typeof stored.name !== "string" || stored.name === "") {
    faults.push(`'name' must be a non-empty string, got ${stored.name === "" ? "an empty one" : kindOf(stored.name)}`);
  }
  for (const name of ["baseUrl", "clientId", "clientSecret", "renewedAt"]) faults.push(...optionalString(stored, name));
  if (stored.oauth !== undefined) {
    if (!isObject(stored.oauth)) faults.push(`'oauth' must be an object, got ${kindOf(stored.oauth)}`);
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
  const page = await keyedEntries(kv, COMMUNITY_PREFIX, limit, cursor);
  const values = page.values.map(({ id, stored }) => ({ tenantId: id, stored, damaged: communityDamage(id, stored) }));
  return { values, cursor: page.cursor };
}
