// Redelivery (GitHub's "Redeliver"): a postback the sandbox sent, failed or
// not, sent again to its hook's current callback, the same body under a
// fresh signature (a receiver refuses a header it accepted once, and one
// older than five minutes). `POST /redeliver` with `{ webhookId, timestamp }`
// (the timestamp of the first postback's signature), and Sandbox.redeliver.

import type { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { SandboxCore } from "./_core.ts";
import { refuseOtherMethods } from "./_methods.ts";
import { BODY_TOO_LARGE, MAX_BODY_BYTES } from "./_http.ts";
import { findSent, keepSent, type SentPostback } from "./_sent.ts";
import { deliver } from "./_trigger.ts";
import type { Delivery, RedeliverOptions } from "./types.ts";

/** Why a redelivery was refused: the HTTP status and a message. */
export interface Refusal {
  status: 400 | 404 | 409;
  message: string;
}

/** Adds `POST /redeliver`; returns what it runs, for Sandbox.redeliver. */
export function redeliverRoutes(
  app: Hono,
  core: SandboxCore,
): { runRedeliver: (options: RedeliverOptions) => Promise<Delivery | Refusal> } {
  const { store, kv, fetchFn, signingNow, tenantId } = core;

  const runRedeliver = async (options: RedeliverOptions): Promise<Delivery | Refusal> => {
    const { webhookId, timestamp } = options ?? {};
    if (typeof webhookId !== "string" || webhookId === "" || webhookId.length > 100) {
      return { status: 400, message: "'webhookId' must be a non-empty string" };
    }
    if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
      return { status: 400, message: "'timestamp' must be the signature's timestamp, in ms" };
    }
    const hook = await store.hook(tenantId, webhookId);
    if (!hook) return { status: 404, message: `No webhook with id ${JSON.stringify(webhookId)}` };
    const sent = await findSent(kv, webhookId, timestamp);
    if (!sent) {
      return {
        status: 404,
        message: `No postback to webhook ${webhookId} signed at ${timestamp} is kept (postbacks are kept 3 days)`,
      };
    }
    if (!hook.enabled) {
      return { status: 409, message: `Webhook ${webhookId} is disabled: the platform posts nothing to it` };
    }
    const client = await store.client("community");
    const ctx = {
      fetch: fetchFn,
      now: signingNow,
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      keep: (id: string, at: number, again: SentPostback) => keepSent(kv, id, at, again),
    };
    const [postback] = JSON.parse(sent.body);
    return await deliver(ctx, hook, sent.event, postback);
  };

  const limit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.json({ error: BODY_TOO_LARGE }, 413) });
  app.post("/redeliver", limit, async (c) => {
    // JSON only: a browser cannot send that content type across sites without asking first (CORS), unlike a form.
    if (!/^application\/json\b/i.test(c.req.header("Content-Type") ?? "")) {
      return c.json({ error: "Send a JSON body (Content-Type: application/json): { webhookId, timestamp }" }, 415);
    }
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      body = undefined;
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return c.json({ error: "The body must be a JSON object: { webhookId, timestamp }" }, 400);
    }
    const result = await runRedeliver(body as RedeliverOptions);
    if ("message" in result) return c.json({ error: result.message }, result.status);
    return c.json({ delivered: [result] });
  });
  refuseOtherMethods(app, { path: "/redeliver", methods: ["POST"] }, (c, error, status) => c.json({ error }, status));

  return { runRedeliver };
}
