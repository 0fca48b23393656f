/**
 * The console web app: `createApp(options)` wires Module A, the sessions,
 * the deliveries, the sandbox and the routes into one Hono app. It reads no
 * environment and opens no KV (that is `main.ts`'s job), so tests build it
 * over a `:memory:` KV and call `app.request(...)` or serve `fetch`.
 *
 * @module
 */

import { Hono } from "hono";
import type { ConsoleApp, ConsoleOptions } from "./lib/app_options.ts";
import { createRelay, createWebhooks, type RelayWorker } from "../webhooks/mod.ts";
import { MessagePage } from "./components/Message.tsx";
import { type Assets, buildAssets } from "./lib/bundle.ts";
import { type ConsoleEnv, type Deps, describeError, html } from "./lib/context.ts";
import { DeliveryStore } from "./log/mod.ts";
import { HookLabels } from "./lib/labels.ts";
import type { OAuthProvider } from "./lib/oauth.ts";
import { outboundFetch } from "./lib/outbound.ts";
import { recordPlatformFailures } from "./lib/platform_failures.ts";
import { preconnectSandbox, sandboxAliasFetch, settleSandboxCommunity } from "./lib/sandbox_connect.ts";
import { SessionStore } from "./lib/session.ts";
import { authRoutes } from "./routes/auth.tsx";
import { installGuards } from "./lib/guards.tsx";
import { clientAddresses } from "./routes/rate_limits.ts";
import { DEFAULT_RATE_LIMITS, RateLimiter, type RateLimits } from "./lib/rate_limit.ts";
import { communityRoutes } from "./routes/communities.tsx";
import { deliveryRoutes } from "./routes/deliveries.tsx";
import { deliveryDetailRoutes } from "./routes/delivery_detail.tsx";
import { redeliverRoutes } from "./routes/delivery_redeliver.tsx";
import { eventRoutes } from "./routes/events.tsx";
import { homeRoutes } from "./routes/home.tsx";
import { receiverIdOf, receiverRoutes } from "./routes/hooks.ts";
import { staticRoutes } from "./routes/static.ts";
import { kvAnswers, mountObservability } from "./routes/observability.ts";
import { webhookRoutes } from "./routes/webhooks.tsx";
import { forwardingRoutes } from "./routes/forwarding.tsx";
import { createSandbox, SANDBOX_COMMUNITY } from "../sandbox/mod.ts";

const SANDBOX_TENANT_ID: string = SANDBOX_COMMUNITY.tenantId;

export type { OAuthProvider, RateLimits };
export type { ConsoleApp, ConsoleOptions };
export { DEFAULT_RATE_LIMITS };

/** Where the console is reached when `publicUrl` is not given. */
export const DEFAULT_PUBLIC_URL = "http://127.0.0.1:8000";

/**
 * Builds the console. Returns at once; the asynchronous start (deciding on
 * the sandbox in `"auto"` mode, saving its community, building the browser
 * bundles) runs in the background and every request waits for it. Await
 * `ready` to learn when it is done or why it failed. (Awaiting `createApp`
 * itself is harmless.)
 *
 * @param options the KV, the public URL and the rest
 * @returns the app, its handler, `ready` and `close`
 * @throws {TypeError} when the options are inconsistent: `publicUrl` not an
 *   absolute URL, or no sign-in provider with the sandbox off
 */
export function createApp(options: ConsoleOptions): ConsoleApp {
  if (!options || typeof options !== "object" || !options.kv) {
    throw new TypeError("Cannot start the console: 'options.kv' must be a Deno.Kv");
  }
  const { kv } = options;
  let publicUrl: string;
  try {
    publicUrl = new URL(options.publicUrl ?? DEFAULT_PUBLIC_URL).origin;
  } catch {
    throw new TypeError(
      `Cannot start the console: 'publicUrl' must be an absolute URL, got ${String(options.publicUrl)}`,
    );
  }
  const mode = options.sandbox === true ? "on" : options.sandbox === false ? "off" : options.sandbox ?? "auto";
  if (!["on", "off", "auto"].includes(mode)) {
    throw new TypeError(`Cannot start the console: 'sandbox' must be "on", "off" or "auto", got ${String(mode)}`);
  }
  if (mode === "off" && !options.oauth) {
    throw new TypeError(
      "Cannot start the console: no sign-in provider is configured and the sandbox is off",
    );
  }
  const fetchFn = options.fetch ?? globalThis.fetch;
  const outbound = outboundFetch(fetchFn, {
    timeoutMs: options.platformTimeoutMs ?? 10_000,
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
    allowOrigins: [publicUrl],
  });
  // The sandbox's postbacks go through postbackFetch (set below, once the delivery log exists), which logs those that
  // fail in the hook's deliveries as platform-side failures.
  const sandbox = mode === "off"
    ? null
    : createSandbox({ kv, basePath: "/sandbox", fetch: (input, init) => postbackFetch(input, init) });
  /** Sandbox base URLs stored by another console on this KV, served in-process. */
  const sandboxAliases = new Set<string>();
  const platformFetch = sandbox ? sandboxAliasFetch(sandbox, sandboxAliases, outbound) : outbound;
  const webhooks = createWebhooks(kv, {
    fetch: platformFetch,
    ...(options.platformTimeoutMs ? { timeout: options.platformTimeoutMs } : {}),
  });

  const closing = new AbortController();
  const deps: Deps = {
    kv,
    webhooks,
    sessions: new SessionStore(kv, options.sessionTtlMs ?? 8 * 3600_000),
    limiter: new RateLimiter(kv, options.rateLimits),
    liveStreams: options.liveStreams,
    labels: new HookLabels(kv),
    deliveries: new DeliveryStore(kv, options.deliveries),
    publicUrl,
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
    // Set by start() before any request is served.
    signin: options.oauth ?? { authorizationEndpoint: "", tokenEndpoint: "", clientId: "" },
    sandbox: false,
    staleAfterMs: options.reconcileStaleAfterMs,
    fetch: platformFetch,
    sandboxAliases,
    closing: closing.signal,
    // Destinations reached from the console's machine: private ones only where outbound calls may reach them.
    relay: createRelay(kv, { allowPrivateNetwork: options.allowPrivateNetwork ?? false }),
  };
  let relayWorker: RelayWorker | null = null;
  const postbackFetch = recordPlatformFailures(outbound, { publicUrl, webhooks, deliveries: deps.deliveries });
  const assets: Assets = new Map();

  async function start(): Promise<void> {
    let sandboxOn = mode === "on";
    if (mode === "auto") {
      const { values } = await webhooks.communities.list({ limit: 2 });
      sandboxOn = !options.oauth || !values.some((c) => c.tenantId !== SANDBOX_TENANT_ID);
    }
    if (sandbox && sandboxOn) {
      // Saved when absent; left alone when another console on this KV
      // serves it (its address then served in-process here too); pointed
      // here when the console moved.
      const { stored, alias } = await settleSandboxCommunity(sandbox, webhooks.communities, publicUrl, fetchFn);
      if (alias) sandboxAliases.add(alias);
      if (!stored.oauth?.access_token && options.preconnectSandbox !== false) {
        try {
          await preconnectSandbox(sandbox, stored, webhooks.communities, publicUrl);
        } catch (err) {
          console.warn(
            `Could not connect the sandbox community at start (${describeError(err)}); connect it from its page`,
          );
        }
      }
      if (!options.oauth) deps.signin = await sandbox.oauthClientFor(publicUrl);
      deps.sandboxPlace = sandbox.placeFor(publicUrl);
    }
    deps.sandbox = Boolean(sandbox && sandboxOn);
    if (sandbox && sandboxOn) {
      deps.sandboxTest = async (webhookId) => (await sandbox.trigger({ webhookId })).delivered;
      deps.sandboxRedeliver = (webhookId, timestamp) => sandbox.redeliver({ webhookId, timestamp });
    }
    if (options.buildAssets !== false) {
      for (const [name, data] of await buildAssets()) assets.set(name, data);
    }
    if (options.relayWorker && !closing.signal.aborted) relayWorker = deps.relay.run();
    // The hook index catches up with a log an earlier version (or a stopped console) left; `close` waits for it.
    deps.deliveries.index().catch(() => {});
  }
  const ready = start();
  ready.catch(() => {}); // reported through `ready` and on each request

  const app = new Hono<ConsoleEnv>();

  // Before the start is awaited: /readyz answers while the console starts.
  const observability = mountObservability(app, {
    kv,
    token: options.metricsToken,
    ready,
    canNumber: () => deps.deliveries.canNumber(),
  });

  app.use("*", async (_c, next) => {
    await ready;
    await next();
  });

  installGuards(app, deps, publicUrl);

  // A KV that hangs is unavailable too: answered 503 after 2 s, its one read shared by the probes meanwhile.
  const kvAnswered = kvAnswers(kv);
  app.get(
    "/healthz",
    async (c) => await kvAnswered() ? c.json({ status: "ok" }) : c.json({ status: "kv unavailable" }, 503),
  );

  staticRoutes(app, assets);
  authRoutes(app, deps);
  homeRoutes(app, deps);
  communityRoutes(app, deps);
  webhookRoutes(app, deps);
  deliveryRoutes(app, deps);
  redeliverRoutes(app, deps);
  deliveryDetailRoutes(app, deps);
  eventRoutes(app, deps);
  forwardingRoutes(app, deps);
  const receive = receiverRoutes(app, deps);
  if (sandbox) {
    app.use("/sandbox", async (c, next) => deps.sandbox ? await next() : c.notFound());
    app.use("/sandbox/*", async (c, next) => deps.sandbox ? await next() : c.notFound());
    app.route("/sandbox", sandbox.app);
    // The sandbox's home is `/sandbox`; accept the trailing slash too.
    app.get("/sandbox/", (c) => c.redirect("/sandbox", 302));
  }

  app.notFound((c) =>
    html(
      c,
      MessagePage({
        title: "Not found",
        message: "There is no page here.",
        user: c.get("session")?.user.name,
        csrf: c.get("session")?.csrf,
        sandbox: deps.sandbox,
      }),
      404,
    )
  );

  return {
    app,
    fetch: (request, info) => {
      const remote = info?.remoteAddr;
      if (remote && "hostname" in remote) clientAddresses.set(request, remote.hostname);
      // The platform's postbacks go straight to the receiver: the page middleware has nothing to do for them.
      const id = request.method === "POST" ? receiverIdOf(request.url) : null;
      return id === null ? app.fetch(request) : ready.then(() => receive(request, id, info));
    },
    webhooks,
    deliveries: deps.deliveries,
    ready,
    get sandboxApi() {
      return deps.sandbox ? sandbox : null;
    },
    get sandbox() {
      return deps.sandbox;
    },
    async close() {
      closing.abort();
      observability.close();
      await ready.catch(() => {});
      await relayWorker?.stop();
      await deps.relay.close();
      await deps.deliveries.flush();
    },
  };
}
