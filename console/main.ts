/**
 * Starts the console: `deno task console`. The only place that reads the
 * environment and opens the KV.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `PORT` | `8000` | port to listen on (`0` picks a free one) |
 * | `HOST` | `127.0.0.1` | address to listen on |
 * | `KV_PATH` | `.data/console.kv` | `Deno.openKv` location: a file, `:memory:` or a KV Connect URL (with `DENO_KV_ACCESS_TOKEN`) |
 * | `PUBLIC_URL` | `http://HOST:PORT` | the origin browsers and the platform reach the console at, an http(s) origin only (required with an IPv6 `HOST` with a zone, `fe80::1%eth0`: no URL can carry one) |
 * | `SANDBOX` | `auto` | `on`, `off`, or `auto` |
 * | `OAUTH_AUTHORIZATION_ENDPOINT`, `OAUTH_TOKEN_ENDPOINT`, `OAUTH_CLIENT_ID`, `OAUTH_CLIENT_SECRET`, `OAUTH_USERINFO_ENDPOINT`, `OAUTH_SCOPE` | — | the sign-in provider; without them the sandbox signs you in |
 * | `SESSION_TTL_HOURS` | `8` | session lifetime in hours, 1 to 2160 |
 * | `DELIVERIES_RETAIN` | `500` | deliveries kept (the newest), 1 to 10000000; each also expires after 7 days |
 * | `ALLOW_PRIVATE_NETWORK` | off | `1` (`true`, `on`) lets outbound calls reach loopback, private and link-local hosts |
 * | `PLATFORM_TIMEOUT_SECONDS` | `10` | time limit of every outbound call, 1 to 300 s |
 * | `RELAY_WORKER` | `1` | `0` (`false`, `off`) runs no relay worker in this process (forwarded postbacks then wait for a worker elsewhere) |
 * | `METRICS_TOKEN` | — | the bearer token of `GET /metrics` (Prometheus; printable ASCII without whitespace, else the start stops; 32 or more random characters, else a warning); without it `/metrics` is 404 |
 * | `OTEL_DENO`, `OTEL_EXPORTER_OTLP_ENDPOINT`, ... | — | Deno's OpenTelemetry export (docs/observability.md) |
 * | `LIVE_STREAMS` | `500` | live views (event streams) this process holds open at once (10 per session), 1 to 1000000 |
 * | `RATE_LIMIT_SIGNIN`, `RATE_LIMIT_FORMS`, `RATE_LIMIT_RECEIVER`, `RATE_LIMIT_SANDBOX` | `20`, `120`, `6000`, `60` | requests per minute (per client address, session, tenant, client address); 0 to 1000000, `0` turns one off |
 *
 * @module
 */

import { type ConsoleApp, createApp, DEFAULT_RATE_LIMITS, type OAuthProvider } from "./app.ts";
import { keepServing } from "../webhooks/mod.ts";
import { isKvConnectUrl, kvOpenRefusal, openKv } from "./_kv_path.ts";

function env(name: string): string | undefined {
  const v = Deno.env.get(name);
  return v === undefined || v.trim() === "" ? undefined : v.trim();
}

function fail(message: string): never {
  console.error(message);
  Deno.exit(1);
}

function intEnv(name: string, def: number, min: number, max: number): number {
  const raw = env(name);
  if (raw === undefined) return def;
  // Only a plain decimal: Number() reads "0x0" as 0 and "8e3" as 8000, which no one types as a port or a count.
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    fail(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  }
  return n;
}

/** A per-minute limit from the environment; `0` turns it off. */
function perMinute(name: string, def: number): { limit: number; windowMs: number } | null {
  const limit = intEnv(name, def, 0, 1_000_000);
  return limit === 0 ? null : { limit, windowMs: 60_000 };
}

function boolEnv(name: string): boolean {
  const raw = env(name)?.toLowerCase();
  if (raw === undefined || raw === "0" || raw === "false" || raw === "off") return false;
  if (raw === "1" || raw === "true" || raw === "on") return true;
  fail(`${name} must be 1, true or on, or 0, false or off, got '${raw}'`);
}

function oauthFromEnv(): OAuthProvider | undefined {
  const authorizationEndpoint = env("OAUTH_AUTHORIZATION_ENDPOINT");
  const tokenEndpoint = env("OAUTH_TOKEN_ENDPOINT");
  const clientId = env("OAUTH_CLIENT_ID");
  if (!authorizationEndpoint && !tokenEndpoint && !clientId) return undefined;
  if (!authorizationEndpoint || !tokenEndpoint || !clientId) {
    fail(
      "OAUTH_AUTHORIZATION_ENDPOINT, OAUTH_TOKEN_ENDPOINT and OAUTH_CLIENT_ID must be set together",
    );
  }
  return {
    authorizationEndpoint,
    tokenEndpoint,
    clientId,
    clientSecret: env("OAUTH_CLIENT_SECRET"),
    userinfoEndpoint: env("OAUTH_USERINFO_ENDPOINT"),
    scope: env("OAUTH_SCOPE"),
  };
}

/** HOST: a name or an address, an IPv6 one bare or in one pair of brackets; a port belongs in PORT. */
function hostEnv(): string {
  const raw = env("HOST") ?? "127.0.0.1";
  const inner = raw.startsWith("[") && raw.endsWith("]") ? raw.slice(1, -1) : raw;
  const ipv6 = inner.includes(":");
  const zoneAt = inner.indexOf("%");
  if (ipv6 && zoneAt >= 0 && /^[0-9a-f:.]+$/i.test(inner.slice(0, zoneAt))) {
    const zone = inner.slice(zoneAt + 1);
    if (!/^[\w.-]+$/.test(zone)) {
      fail(
        `HOST '${raw}' has ${zone === "" ? "an empty zone" : "a zone that is no interface name or number"}: ` +
          "write the interface after '%' (fe80::1%eth0), or HOST without a zone",
      );
    }
  }
  if (/[\[\]/\s]/.test(inner) || (ipv6 && !/^[0-9a-f:.]+(%[\w.-]+)?$/i.test(inner)) || (!ipv6 && inner !== raw)) {
    fail(`HOST must be a host name or an IP address (an IPv6 one bare or in brackets), without a port, got '${raw}'`);
  }
  if (ipv6 && inner.split(":").length < 3) {
    fail(`HOST must be a host name or an IP address without a port (set the port in PORT), got '${raw}'`);
  }
  return raw;
}

/**
 * PUBLIC_URL, when set: an http(s) origin, as the console serves from `/` (a path would be dropped from its redirect
 * URIs and callbacks); returned as its origin. User info is never echoed.
 */
function publicUrlEnv(): string | undefined {
  const raw = env("PUBLIC_URL");
  if (raw === undefined) return undefined;
  const url = URL.parse(raw);
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    const shown = url?.username || url?.password ? "(a URL with user info)" : `'${raw}'`;
    fail(`PUBLIC_URL must be an absolute http(s) URL, the origin browsers reach the console at, got ${shown}`);
  }
  if (url.username || url.password || url.pathname !== "/" || url.search || url.hash || /[?#]$/.test(raw)) {
    const shown = url.username || url.password ? "a URL with user info" : `'${raw}'`;
    fail(`PUBLIC_URL must be an origin (scheme, host and port: the console serves from /), got ${shown}`);
  }
  return url.origin;
}

/** `hostname` as a URL's host writes it: an IPv6 address in brackets, once (HOST may already have them). */
function urlHost(hostname: string): string {
  return hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
}

/**
 * Whether an address listened on (the server's own, as bound: `LOCALHOST`, `127.1` or `0x7f.1` in HOST is bound as
 * 127.0.0.1) reaches this machine only: 127.0.0.0/8, and `::1` or an IPv4-mapped 127 address however written (the URL
 * parser writes an IPv6 address one way: `0:0:0:0:0:0:0:1` is `[::1]`).
 */
function isLoopback(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, "$1");
  if (bare === "localhost" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)) return true;
  const written = bare.includes(":") ? URL.parse(`http://[${bare}]/`)?.hostname : undefined;
  return written === "[::1]" || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(written ?? "");
}

/**
 * Starts the console from the environment. `open` opens its KV (the load
 * test passes one that counts commits).
 */
export async function main(open: (location: string) => Promise<Deno.Kv> = openKv): Promise<void> {
  const port = intEnv("PORT", 8000, 0, 65535);
  const hostname = hostEnv();
  const zone = /%([^\]]+)/.exec(hostname)?.[1];
  const givenPublicUrl = publicUrlEnv();
  if (zone !== undefined && givenPublicUrl === undefined) {
    // RFC 6874's %25 is no way out: the URL standard (Deno's URL, every browser) refuses a zone in any form.
    fail(
      `HOST '${hostname}' has a zone (%${zone}), which no URL can carry (browsers refuse it, even written ` +
        `%25${zone}): set PUBLIC_URL to the URL browsers reach the console at, or HOST to an address without a zone`,
    );
  }
  const kvPath = env("KV_PATH") ?? ".data/console.kv";
  const sandbox = (env("SANDBOX") ?? "auto").toLowerCase();
  if (!["on", "off", "auto"].includes(sandbox)) {
    fail(`SANDBOX must be on, off or auto, got '${sandbox}'`);
  }
  const metricsToken = env("METRICS_TOKEN");
  // A bearer token is one run of visible characters: one with a space inside could never be sent.
  if (metricsToken !== undefined && /\s/.test(metricsToken)) {
    fail("METRICS_TOKEN must not contain spaces or other whitespace: no Authorization header could carry it");
  }
  // Not echoed: a control character cannot be sent in a header, a non-ASCII one is sent differently by each client.
  if (metricsToken !== undefined && !/^[\x21-\x7e]+$/.test(metricsToken)) {
    fail(
      "METRICS_TOKEN must be printable ASCII only (no control or non-ASCII character): not every client can send it",
    );
  }
  // Wrong tokens are not limited (a guess costs one constant-time compare): the token's length is its guard.
  if (metricsToken !== undefined && metricsToken.length < 32) {
    console.warn(
      `Warning: METRICS_TOKEN has ${metricsToken.length} characters: wrong tokens are not limited, so use one of ` +
        "32 or more random characters (openssl rand -hex 32)",
    );
  }
  // A folder, a file that is no database, a path under a file: said in one line naming KV_PATH, the file untouched.
  const kv = await open(kvPath).catch((err) => fail(kvOpenRefusal(kvPath, err)));

  // Listen first, so that PORT=0 gives a known public URL to the app.
  let handler: (req: Request, info?: Deno.ServeHandlerInfo) => Response | Promise<Response> = () =>
    new Response("Starting", { status: 503 });
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    // Out of file descriptors (held connections), Deno.serve's accept fails and its server ends: keepServing says so
    // once, refuses new connections meanwhile and listens on the same address again (docs/console-config.md).
    server = keepServing({
      port,
      hostname,
      onListen: () => {},
      onDown: (message) => console.warn(`Warning: the console ${message}`),
      onUp: (message) => console.warn(`The console ${message}`),
    }, (req, info) => handler(req, info));
  } catch (err) {
    kv.close();
    const at = `${urlHost(hostname)}:${port}`;
    fail(
      err instanceof Deno.errors.AddrInUse
        ? `Cannot start the console: ${at} is in use (another process listens there): set PORT to another port`
        : `Cannot start the console: cannot listen on ${at}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const addr = server.addr;
  const shownHost = hostname === "0.0.0.0" || hostname === "::" || hostname === "[::]"
    ? "localhost"
    : urlHost(hostname);
  const publicUrl = givenPublicUrl ?? `http://${shownHost}:${addr.port}`;

  const oauth = oauthFromEnv();
  let app: ConsoleApp;
  try {
    app = createApp({
      kv,
      publicUrl,
      sandbox: sandbox as "on" | "off" | "auto",
      oauth,
      sessionTtlMs: intEnv("SESSION_TTL_HOURS", 8, 1, 24 * 90) * 3600_000,
      deliveries: { retain: intEnv("DELIVERIES_RETAIN", 500, 1, 10_000_000) },
      allowPrivateNetwork: boolEnv("ALLOW_PRIVATE_NETWORK"),
      relayWorker: env("RELAY_WORKER") === undefined ? true : boolEnv("RELAY_WORKER"),
      platformTimeoutMs: intEnv("PLATFORM_TIMEOUT_SECONDS", 10, 1, 300) * 1000,
      metricsToken,
      liveStreams: { total: intEnv("LIVE_STREAMS", 500, 1, 1_000_000) },
      rateLimits: {
        signin: perMinute("RATE_LIMIT_SIGNIN", DEFAULT_RATE_LIMITS.signin!.limit),
        forms: perMinute("RATE_LIMIT_FORMS", DEFAULT_RATE_LIMITS.forms!.limit),
        receiver: perMinute("RATE_LIMIT_RECEIVER", DEFAULT_RATE_LIMITS.receiver!.limit),
        sandbox: perMinute("RATE_LIMIT_SANDBOX", DEFAULT_RATE_LIMITS.sandbox!.limit),
        // The sandbox's consent form, once per sign-in or connect: never tighter than the sign-in limit it follows.
        consents: perMinute("RATE_LIMIT_SIGNIN", DEFAULT_RATE_LIMITS.consents!.limit),
      },
    });
    handler = app.fetch;
    await app.ready;
  } catch (err) {
    fail(
      `Cannot start the console: ${
        err instanceof Error ? err.message.replace(/^Cannot start the console: /, "") : String(err)
      }`,
    );
  }

  // PUBLIC_URL is where browsers reach the console: a proxy there lets anyone in even to a loopback address.
  const reachedAt = new URL(publicUrl).hostname;
  if (!oauth && app.sandbox && !(isLoopback(addr.hostname) && isLoopback(reachedAt))) {
    // The sandbox's consent page approves everyone: it is no sign-in.
    const reach = isLoopback(addr.hostname) ? `is reached at ${publicUrl} (PUBLIC_URL)` : `listens on ${hostname}`;
    console.warn(
      `Warning: the console ${reach} and signs in through the sandbox, which approves anyone: ` +
        "anyone who can reach it can sign in and manage every community. " +
        "Set HOST=127.0.0.1 with no public PUBLIC_URL, or the OAUTH_* variables of a real sign-in provider.",
    );
  }

  const where = isKvConnectUrl(kvPath) ? "a KV Connect database" : kvPath;
  console.log(
    `Console listening on ${publicUrl} (KV: ${where}; sandbox: ${app.sandbox ? "on" : "off"})`,
  );

  const shutdown = async () => {
    Deno.removeSignalListener("SIGINT", shutdown);
    Deno.removeSignalListener("SIGTERM", shutdown);
    await app.close(); // ends the live streams, so that the server can drain
    await server.shutdown();
    await app.close(); // writes what the requests that were still running recorded
    kv.close();
    // The process ends on its own, not through Deno.exit: with OTEL_DENO=true, Deno.exit can hang for good
    // (docs/observability.md, "Ending the process"). Should something still keep it alive, the timer ends it.
    Deno.unrefTimer(setTimeout(() => Deno.exit(0), EXIT_GRACE_MS));
  };
  Deno.addSignalListener("SIGINT", shutdown);
  Deno.addSignalListener("SIGTERM", shutdown);
}

/** How long the console may take to end on its own after a signal before it is ended with `Deno.exit`. */
const EXIT_GRACE_MS = 2_000;

if (import.meta.main) await main();
