// What the sandbox's route groups share: its store, clock, paths and the
// addresses it builds for an origin. Made once by createSandbox().

import type { Context } from "hono";
import type { SandboxStore } from "./_store.ts";
import type { SandboxAuthorizationServer, SandboxFaults } from "./types.ts";

/** The state and settings every route group of one sandbox uses. */
export interface SandboxCore {
  kv: Deno.Kv;
  store: SandboxStore;
  basePath: string;
  ttlSeconds: number;
  fetchFn: typeof fetch;
  now: () => number;
  /** A signing timestamp no earlier signature of this sandbox used. */
  signingNow: () => number;
  tenantId: string;
  baseOf: (c: Context) => string;
  authorizationServerFor: (origin: string) => SandboxAuthorizationServer;
  placeFor: (origin: string) => string;
  /** The faults a test injects, if any. */
  faults?: SandboxFaults;
}
