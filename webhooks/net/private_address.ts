/**
 * `isPrivateAddress`: whether an IP address is one that a call to another
 * host must not reach (loopback, private, link-local, metadata, or an IPv6
 * form that carries such an IPv4 address).
 *
 * @module
 */

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

/** The IPv4 address held in two 16-bit groups, dotted. */
function dotted(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * The IPv4 addresses an IPv6 address carries, each of which it reaches, or
 * `null` for a range that may carry one anywhere (NAT64 for local use).
 */
function embeddedV4(g: number[]): string[] | null {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const last = dotted(g[6], g[7]);
  const found: string[] = [];
  if (zero(0, 5) && (g[5] === 0xffff || g[5] === 0)) found.push(last); // ::ffff:a.b.c.d mapped, ::a.b.c.d compatible
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) found.push(last); // ::ffff:0:a.b.c.d translated (SIIT)
  if (g[0] === 0x64 && g[1] === 0xff9b) {
    if (!zero(2, 6)) return null; // 64:ff9b:1::/48, NAT64 for local use: the address may sit at any offset
    found.push(last); // 64:ff9b::a.b.c.d, NAT64
  }
  if (g[0] === 0x2002) found.push(dotted(g[1], g[2])); // 2002:AABB:CCDD::/48, 6to4
  // Teredo, 2001:0::/32: the server's address in bits 32-63, the client's XOR 0xffffffff in the last 32 bits.
  if (g[0] === 0x2001 && g[1] === 0) found.push(dotted(g[2], g[3]), dotted(g[6] ^ 0xffff, g[7] ^ 0xffff));
  if ((g[4] & 0xfdff) === 0 && g[5] === 0x5efe) found.push(last); // ISATAP interface id (0 or 200):5efe:a.b.c.d
  return found;
}

/**
 * Whether an IP address (v4 or v6, brackets allowed) is loopback, private,
 * link-local, metadata or otherwise not public: the guard against server-side
 * request forgery of the console's outbound calls and the relay's
 * destinations. An IPv6 address that carries an IPv4 address (mapped,
 * compatible, translated, NAT64, 6to4, Teredo, ISATAP) is private when any
 * address it carries is; what is not an IP address at all counts as private.
 *
 * @param ip An IPv4 or IPv6 address, as text.
 * @returns `true` when a call to it must be refused (unless private networks are allowed).
 *
 * @example Usage
 * ```ts
 * import { isPrivateAddress } from "@community-webhooks/sdk/webhooks";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isPrivateAddress("10.0.0.7"), true);
 * assert.equal(isPrivateAddress("[::ffff:127.0.0.1]"), true);
 * assert.equal(isPrivateAddress("2002:7f00:1::"), true); // 6to4 of 127.0.0.1
 * assert.equal(isPrivateAddress("93.184.215.14"), false);
 * ```
 */
export function isPrivateAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, "");
  const kind = isIP(bare);
  if (kind === 4) return privateV4(bare);
  if (kind !== 6) return true; // not an address at all: refuse
  const g = v6Groups(bare);
  const embedded = embeddedV4(g);
  if (embedded === null || embedded.some(privateV4)) return true;
  return (g[0] & 0xfe00) === 0xfc00 || // unique local (fd00:ec2::254 is AWS metadata)
    (g[0] & 0xffc0) === 0xfe80 || // link-local
    (g[0] & 0xffc0) === 0xfec0 || // site-local (deprecated, still routed inside some networks)
    (g[0] & 0xff00) === 0xff00 || // multicast
    g[0] === 0x2001 && g[1] === 0x0db8; // documentation
}
