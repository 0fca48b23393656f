/**
 * Operators' routes: `GET /metrics` (Prometheus text, behind the bearer
 * token `METRICS_TOKEN`; 404 when none is set, 401 without it) and `GET
 * /readyz` (200 `{ ready: true }` once a KV read succeeds within 2 s, else
 * 503 `{ ready: false, reason }`; 503 too while every writer slot of the
 * delivery log is leased by another process, when each postback would get
 * a 500; requests that come while a check runs share its answer, and a
 * KV read still running after its check timed out is waited on by the next
 * checks rather than read again). Neither needs a session; both are
 * mounted before the console's start is awaited, so that they answer while
 * it starts.
 *
 * @module
 */

import type { Hono } from "hono";
import { createHash, timingSafeEqual } from "node:crypto";
import type { ConsoleEnv } from "../lib/context.ts";
import { type ConsoleMetrics, createConsoleMetrics } from "../lib/metrics.ts";
import { observeMetrics, WEBHOOKS_METRICS } from "../../webhooks/mod.ts";

/** How long `/readyz` and `/healthz` wait for their KV read. */
export const READY_TIMEOUT_MS = 2_000;

/** What the routes need. */
export interface ObservabilityDeps {
  kv: Deno.Kv;
  /** The console's metrics; `null` when no token is set (then `/metrics` is 404). */
  metrics: ConsoleMetrics | null;
  /** `METRICS_TOKEN`. */
  token: string | undefined;
  /** The console's start: not ready before it settled, nor after it failed. */
  ready?: Promise<unknown>;
  /**
   * Whether this process may number the delivery log's rows (holds a writer
   * slot or could lease one), read without leasing; part of the timed read.
   */
  canNumber?: () => Promise<boolean>;
}

/** `/readyz`'s reason when the process could store no postback. */
export const SLOTS_HELD_REASON = "every writer slot of the delivery log is held by another process";

const NO_STORE = { "cache-control": "no-store" };

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Whether `Authorization` is `Bearer <token>`, compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  return match !== null && timingSafeEqual(digest(match[1]), digest(token));
}

/** The KV's read (and `canNumber`'s answer): why it is not ready, or `null`; it may run past any probe's wait. */
function kvRead(kv: Deno.Kv, canNumber?: () => Promise<boolean>): Promise<string | null> {
  return kv.get(["console_health"])
    .then(async () => !canNumber || await canNumber() ? null : SLOTS_HELD_REASON)
    .catch(() => "the KV read failed");
}

/** `read`'s answer, or `late` when it has not settled within {@linkcode READY_TIMEOUT_MS} (it may run on). */
async function within<T>(read: Promise<T>, late: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<T>((resolve) => timer = setTimeout(() => resolve(late), READY_TIMEOUT_MS));
  try {
    return await Promise.race([read, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `GET /healthz`'s check: whether a KV read answers within
 * {@linkcode READY_TIMEOUT_MS}. Probes share the read in flight, one that
 * outlived an earlier probe's wait too, so that a KV that never answers
 * holds one read however many probes come.
 */
export function kvAnswers(kv: Deno.Kv): () => Promise<boolean> {
  let reading: Promise<boolean> | null = null;
  const read = async (): Promise<boolean> => {
    try {
      await kv.get(["console_health"]);
      return true;
    } catch {
      return false;
    }
  };
  return () => within(reading ??= read().finally(() => reading = null), false);
}

/** Mounts `/metrics` and `/readyz`. */
export function observabilityRoutes(app: Hono<ConsoleEnv>, deps: ObservabilityDeps): void {
  let started: "starting" | "started" | "failed" = deps.ready ? "starting" : "started";
  deps.ready?.then(() => started = "started", () => started = "failed");
  // Requests that come while a check runs share it: a flood of probes costs the KV one read at a time, not one each.
  let checking: Promise<string | null> | null = null;
  // A read outlives the check that timed out on it: later checks wait on it (each for its own 2 s) until it settles,
  // so that a KV that never answers holds one read, not one more per probe.
  let reading: Promise<string | null> | null = null;
  const read = (): Promise<string | null> => reading ??= kvRead(deps.kv, deps.canNumber).finally(() => reading = null);
  const late = `the KV did not answer a read within ${READY_TIMEOUT_MS / 1000} s`;
  const check = (): Promise<string | null> => checking ??= within(read(), late).finally(() => checking = null);

  app.get("/metrics", async (c) => {
    if (deps.metrics === null || !deps.token) return c.text("Not found", 404, NO_STORE);
    if (!bearerMatches(c.req.header("authorization"), deps.token)) {
      return c.text("Unauthorized", 401, { ...NO_STORE, "www-authenticate": 'Bearer realm="metrics"' });
    }
    return c.body(await deps.metrics.text(), 200, { ...NO_STORE, "content-type": deps.metrics.contentType });
  });

  app.get("/readyz", async (c) => {
    const reason = started === "starting"
      ? "the console is starting"
      : started === "failed"
      ? "the console could not start"
      : await check();
    return reason === null ? c.json({ ready: true }, 200, NO_STORE) : c.json({ ready: false, reason }, 503, NO_STORE);
  });
}

/**
 * Mounts `/metrics` and `/readyz` for a console: with a token, the
 * package's metrics are counted from now on (`close()` stops counting).
 */
export function mountObservability(
  app: Hono<ConsoleEnv>,
  options: { kv: Deno.Kv; token: string | undefined; ready: Promise<unknown>; canNumber?: () => Promise<boolean> },
): { close(): void } {
  const metrics = options.token ? createConsoleMetrics({ metrics: WEBHOOKS_METRICS, observe: observeMetrics }) : null;
  observabilityRoutes(app, { ...options, metrics });
  return { close: () => metrics?.close() };
}
