/**
 * Every call the console makes to another host (the platform's API, OAuth
 * endpoints, the sandbox's postbacks to callbacks) goes through
 * {@linkcode outboundFetch}: it has a time limit, it names the host when it
 * fails, and it refuses hosts that resolve to loopback, private, link-local
 * or metadata addresses (SSRF), and names that resolve to no address it can
 * check, unless the console runs with
 * `allowPrivateNetwork`. The console's own origin (its sandbox) is always
 * allowed.
 *
 * @module
 */

import { isIP } from "node:net";

/** An outbound call that failed: refused, timed out or unreachable. Its message names the host. */
export class OutboundError extends Error {
  /** @param message what failed, naming the host */
  constructor(message: string) {
    super(message);
    this.name = "OutboundError";
  }
}

/** Options of {@linkcode outboundFetch}. */
export interface OutboundOptions {
  /** Time limit of one call in ms. */
  timeoutMs: number;
  /** Allow loopback, private and link-local hosts (development, tests). */
  allowPrivateNetwork: boolean;
  /** Origins always allowed (the console's own). */
  allowOrigins: string[];
  /** Resolves a host name to its addresses; default `Deno.resolveDns` (A and AAAA). */
  resolve?: (host: string) => Promise<string[]>;
}

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
 * Whether an IP address (v4 or v6) is loopback, private, link-local, metadata
 * or otherwise not public. An IPv6 address that carries an IPv4 address
 * (mapped, compatible, translated, NAT64, 6to4, Teredo, ISATAP) is private
 * when any address it carries is.
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

async function resolveDns(host: string): Promise<string[]> {
  const found = await Promise.allSettled([Deno.resolveDns(host, "A"), Deno.resolveDns(host, "AAAA")]);
  return found.flatMap((r) => r.status === "fulfilled" ? r.value : []);
}

/** What checking a URL's host found: why it may not be called, and whether its name had no address to check. */
interface Checked {
  refused: string | null;
  unresolved: boolean;
  /** Refused as it is (or resolves to) an address that is not public. */
  private?: boolean;
}

/** Names only a local network resolves: one label, or mDNS and the private-use domains. */
const LOCAL_NAME = /^[^.]+$|\.(local|lan|internal|intranet|home|corp|home\.arpa)$/i;

async function check(url: URL, options: OutboundOptions): Promise<Checked> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { refused: `${url.protocol} URLs are not called`, unresolved: false };
  }
  if (options.allowPrivateNetwork || options.allowOrigins.includes(url.origin)) {
    return { refused: null, unresolved: false };
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : await (options.resolve ?? resolveDns)(host);
  if (addresses.length === 0 && /(^|\.)localhost$/i.test(host)) addresses.push("127.0.0.1");
  const blocked = addresses.find(isPrivateAddress);
  if (blocked !== undefined) {
    return {
      refused: `${url.host} is a loopback, private or link-local address (${blocked})`,
      unresolved: false,
      private: true,
    };
  }
  return { refused: null, unresolved: addresses.length === 0 };
}

/**
 * Why a URL may not be called, or `null` when it may: not http(s), or its
 * host is (or resolves to) an address that is not public. A name with no
 * address is not known to be private here (`null`); {@linkcode outboundFetch}
 * refuses it all the same, as it cannot be checked.
 */
export async function refusal(url: URL, options: OutboundOptions): Promise<string | null> {
  return (await check(url, options)).refused;
}

/**
 * A fetch for calls to other hosts: each call is refused when its URL is
 * (see {@linkcode refusal}) or when its host name has no DNS address to
 * check (unless `allowPrivateNetwork`), never follows a redirect to another host
 * unchecked (redirects are returned, not followed, while addresses are
 * checked), ends after `timeoutMs`, and fails with an
 * {@linkcode OutboundError} that names the host and what to check.
 */
export function outboundFetch(fetchFn: typeof fetch, options: OutboundOptions): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const checked = await check(url, options);
    // A name with no address the check can see would be resolved by fetch through the system's resolver
    // (search domains, mDNS), unchecked: refused as well.
    const refused = checked.refused ??
      (checked.unresolved ? `${url.hostname} has no DNS address (A or AAAA) that the console can check` : null);
    if (refused) {
      // The setting is for internal hosts: suggested for a private address or a name only a local network knows, not
      // for a public name that found no DNS answer (a machine without DNS), which the setting would not help.
      const internal = checked.private || (checked.unresolved && LOCAL_NAME.test(url.hostname));
      throw new OutboundError(
        `Refused to call ${url.host}: ${refused}. ${
          internal
            ? "Set ALLOW_PRIVATE_NETWORK=1 to allow internal hosts."
            : checked.unresolved
            ? "Check the name, and that this machine can resolve names (DNS)."
            : ""
        }`.trimEnd(),
      );
    }
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const redirect = options.allowPrivateNetwork ? request.redirect : "manual";
    try {
      return await fetchFn(new Request(request, { signal, redirect }));
    } catch (error) {
      if (init?.signal?.aborted) throw error; // the caller's own abort
      if (timeout.aborted) {
        throw new OutboundError(
          `No answer from ${url.host} within ${
            options.timeoutMs / 1000
          } s: check that it is up and reachable from the console`,
        );
      }
      const inner = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : "";
      // The reason only (e.g. "Connection refused"), never the URL with its query.
      const cause = inner.replace(/[^:]*\(https?:\/\/[^)]*\):\s*/g, "").replace(/https?:\/\/\S+/g, "");
      throw new OutboundError(
        `Cannot reach ${url.host}${cause ? ` (${cause.slice(0, 200)})` : ""}: check the URL and that the host is up`,
      );
    }
  };
}
