/**
 * `checkHost`: the private-address guard of a URL's host, as the relay's
 * destinations take it: an IP literal by `isPrivateAddress`, a host name by
 * every address it resolves to (`Deno.resolveDns`, A and AAAA).
 *
 * @module
 */

import { isIP } from "node:net";
import { isPrivateAddress } from "./private_address.ts";

async function resolveDns(host: string): Promise<string[]> {
  const found = await Promise.allSettled([Deno.resolveDns(host, "A"), Deno.resolveDns(host, "AAAA")]);
  return found.flatMap((r) => r.status === "fulfilled" ? r.value : []);
}

/** What checking a host found. */
export interface HostCheck {
  /** Why it may not be called, or `null`. */
  refused: string | null;
  /** The name resolved to no address that could be checked. */
  unresolved: boolean;
  /** The addresses checked (an IP literal: itself); all allowed when `refused` is `null`. */
  addresses: string[];
}

/**
 * Checks a URL's host: an IP literal by the rules above, a name by every
 * address it resolves to (a `localhost` name counts as loopback).
 */
export async function checkHost(url: URL, resolve: (host: string) => Promise<string[]> = resolveDns): Promise<
  HostCheck
> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (/(^|\.)localhost\.?$/i.test(host)) {
    return { refused: `${url.host} is a loopback, private or link-local address`, unresolved: false, addresses: [] };
  }
  const addresses = isIP(host) ? [host] : await resolve(host);
  const blocked = addresses.find(isPrivateAddress);
  if (blocked !== undefined) {
    return {
      refused: `${url.host} is a loopback, private or link-local address (${blocked})`,
      unresolved: false,
      addresses,
    };
  }
  return { refused: null, unresolved: addresses.length === 0, addresses };
}
