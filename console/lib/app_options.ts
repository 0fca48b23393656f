/**
 * The console's options and the app it builds: the types of
 * {@linkcode createApp} (`console/app.ts`).
 *
 * @module
 */

import type { Hono } from "hono";
import type { Webhooks } from "../../webhooks/mod.ts";
import type { ConsoleEnv } from "./context.ts";
import type { DeliveryStore, DeliveryStoreOptions } from "../log/mod.ts";
import type { OAuthProvider } from "./oauth.ts";
import type { RateLimits } from "./rate_limit.ts";
import type { LiveStreamCaps } from "./live_streams.ts";
import type { Sandbox } from "../../sandbox/mod.ts";

/** Options of `createApp`. */
export interface ConsoleOptions {
  /** The KV everything is kept in (opened and closed by the caller). */
  kv: Deno.Kv;
  /** This console's public origin; default `DEFAULT_PUBLIC_URL` (`http://127.0.0.1:8000`). */
  publicUrl?: string;
  /**
   * The sandbox community under `/sandbox`: `"on"`, `"off"`, or `"auto"`
   * (default): on unless an OAuth provider is configured and a community
   * other than the sandbox's exists. `true` and `false` mean `"on"` and
   * `"off"`.
   */
  sandbox?: "on" | "off" | "auto" | boolean;
  /** The sign-in provider; default the sandbox (which must then be on). */
  oauth?: OAuthProvider;
  /** Fetch for OAuth, platform calls and sandbox postbacks; default global fetch. */
  fetch?: typeof fetch;
  /** Session lifetime in ms; default 8 hours. */
  sessionTtlMs?: number;
  /** Deliveries retention. */
  deliveries?: DeliveryStoreOptions;
  /** Build the browser bundles at start; default `true`. */
  buildAssets?: boolean;
  /**
   * Connect the sandbox community (get its tokens through its OAuth,
   * in-process) at start when it has none; default `true`.
   */
  preconnectSandbox?: boolean;
  /**
   * Age in ms after which the reconcile page counts a pending registration
   * as interrupted (Module A's `staleAfter`, default 60000).
   */
  reconcileStaleAfterMs?: number;
  /** Time limit of every outbound call in ms (platform, OAuth, postbacks); default 10 s. */
  platformTimeoutMs?: number;
  /**
   * Let outbound calls reach loopback, private and link-local hosts; default
   * `false` (refused, naming the host). The console's own origin (its
   * sandbox) is always allowed. Development against a local platform and
   * tests set it.
   */
  allowPrivateNetwork?: boolean;
  /**
   * Rate limits by bucket (sign-in, forms, receiver, sandbox, the sandbox's
   * consent form, refused postbacks logged, forms kept), kept in KV;
   * a bucket set to `null` is not limited. Default
   * {@linkcode DEFAULT_RATE_LIMITS}.
   */
  rateLimits?: Partial<RateLimits>;
  /**
   * Run one relay worker in this process, delivering what the receiver
   * forwards to the hooks' destinations (docs/relay.md); default `false`.
   * `console/main.ts` turns it on (`RELAY_WORKER=0` turns it off there).
   */
  relayWorker?: boolean;
  /**
   * Live streams (`GET /deliveries/events`) held open at once: `perSession`
   * (default 10; more are answered 429) and `total` for this process
   * (default 500; more are answered 503).
   */
  liveStreams?: Partial<LiveStreamCaps>;
  /** The bearer token of `GET /metrics` (`METRICS_TOKEN`); without one it is 404 and nothing is counted. */
  metricsToken?: string;
}

/** The built console. */
export interface ConsoleApp {
  /** The Hono app (for `app.request(...)` in tests). */
  app: Hono<ConsoleEnv>;
  /** The request handler, for `Deno.serve`. */
  fetch: (request: Request, info?: Deno.ServeHandlerInfo) => Response | Promise<Response>;
  /** Module A as the console uses it. */
  webhooks: Webhooks;
  /** The stored deliveries. */
  deliveries: DeliveryStore;
  /** The sandbox (its platform emulator), or `null` when the sandbox is off for good. */
  sandboxApi: Sandbox | null;
  /** Settles when the start is done; rejects with why it failed. */
  ready: Promise<void>;
  /** Whether the sandbox is on (known once `ready` settled). */
  readonly sandbox: boolean;
  /** Ends live streams and timers and writes what waits; the KV stays open (the caller owns it). May be called again. */
  close(): Promise<void>;
}
