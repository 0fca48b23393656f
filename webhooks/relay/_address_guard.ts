// The private-address guard of destination URLs: the same rules as the
// console's `console/lib/outbound.ts` (`isPrivateAddress`), IPv6 forms that
// embed an IPv4 address included, and host names checked by the addresses
// they resolve to (`Deno.resolveDns`, A and AAAA). The lead will share one
// guard between the console and Module A.

import { isIP } from "node:net";

function v4Parts(ip: string): number[] {
  return ip.split(".").map(Number);
}

/** Whether an IPv4 address is not on the public internet. */
function privateV4(ip: string): boolean {
  const [a, b, c] = v4Parts(ip);
  return a === 0 || a === 10 || a === 127 || a >= 224 || // this network, private, loopback, multicast, reserved
    a === 100 && b >= 64 && b <= 127 || // carrier-grade NAT
    a === 169 && b === 254 || // link-local, cloud metadata (169.254.169.254)
    a === 172 && b >= 16 && b <= 31 ||
    a === 192 && b === 168 ||
    a === 192 && b === 0 && (c === 0 || c === 2) || // IETF protocol assignments, documentation
    a === 198 && (b === 18 || b === 19) || // benchmarking
    a === 198 && b === 51 && c === 100 || a === 203 && b === 0 && c === 113; // documentation
}

/** Expands an IPv6 address to its eight 16-bit groups. */
function v6Groups(ip: string): number[] {
  let text = ip.toLowerCase().replace(/%.*$/, "");
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4Parts(v4[1]);
    text = text.slice(0, v4.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill("0");
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16));
}

/** Whether an IP address (v4 or v6, brackets allowed) is loopback, private, link-local, metadata or not public. */
export function isPrivateAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, "");
  const kind = isIP(bare);
  if (kind === 4) return privateV4(bare);
  if (kind !== 6) return true; // not an address at all: refuse
  const g = v6Groups(bare);
  const embeddedV4 = `${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`;
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), :: and ::1
    return g[5] === 0 && g[6] === 0 ? true : privateV4(embeddedV4);
  }
  if (g[0] === 0x64 && g[1] === 0xff9b) return privateV4(embeddedV4); // NAT64
  if (g[0] === 0x2002) return privateV4(`${g[1] >> 8}.${g[1] & 255}.${g[2] >> 8}.${g[2] & 255}`); // 6to4
  return (g[0] & 0xfe00) === 0xfc00 || // unique local (fd00:ec2::254 is AWS metadata)
    (g[0] & 0xffc0) === 0xfe80 || // link-local
    (g[0] & 0xff00) === 0xff00 || // multicast
    g[0] === 0x2001 && g[1] === 0x0db8; // documentation
}

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
    return { refused: `${url.host} is a loopback, private or link-local address`, unresolved: false };
  }
  const addresses = isIP(host) ? [host] : await resolve(host);
  const blocked = addresses.find(isPrivateAddress);
  if (blocked !== undefined) {
    return { refused: `${url.host} is a loopback, private or link-local address (${blocked})`, unresolved: false };
  }
  return { refused: null, unresolved: addresses.length === 0 };
}
