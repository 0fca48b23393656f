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
import { isPrivateAddress } from "../../webhooks/mod.ts";

export { isPrivateAddress };

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
  /** The address a host name was checked at (the first, IPv4 first), when it may be called. */
  address?: string;
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
  return { refused: null, unresolved: addresses.length === 0, address: isIP(host) ? undefined : addresses[0] };
}

let pinnedClient: Deno.HttpClient | null = null;

/**
 * A plain-HTTP request to a checked host name, sent to the address the check
 * found with the name in `Host`: `fetch` would look the name up again, and a
 * name rebound to a private address after the check (DNS rebinding) would
 * carry the call inside. HTTPS keeps the name, whose certificate a host
 * behind a rebound address cannot present.
 */
function pinned(request: Request, url: URL, address: string | undefined, init: RequestInit): Request {
  if (address === undefined || url.protocol !== "http:") return new Request(request, init);
  const target = new URL(url.href);
  target.hostname = address.includes(":") ? `[${address}]` : address;
  const headers = new Headers(request.headers);
  headers.set("host", url.host);
  pinnedClient ??= Deno.createHttpClient({ allowHost: true });
  // `client` is Deno's own member of RequestInit (not in the DOM's type).
  return new Request(target, {
    method: request.method,
    headers,
    body: request.body,
    ...init,
    client: pinnedClient,
  } as RequestInit);
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
      return await fetchFn(pinned(request, url, checked.address, { signal, redirect }));
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

/**
 * `response` with its body cut off past `maxBytes`: reading on fails with an
 * {@linkcode OutboundError} naming the host and the limit. For answers read
 * whole by a library (OAuth's token and userinfo), whose host a user may name:
 * fetch inflates a compressed body, so its declared length says nothing of
 * what reading it holds.
 */
export function capped(response: Response, maxBytes: number, what: string): Response {
  if (!response.body) return response;
  let read = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      read += chunk.byteLength;
      if (read > maxBytes) {
        controller.error(new OutboundError(`${what} is larger than ${maxBytes / 1024 / 1024} MiB: it was not read`));
      } else controller.enqueue(chunk);
    },
  });
  const { status, statusText, headers } = response;
  const out = new Response(response.body.pipeThrough(limit), { status, statusText, headers });
  // oauth4webapi reads the URL of an answer (the userinfo's, say): kept as it was.
  Object.defineProperty(out, "url", { value: response.url });
  return out;
}
