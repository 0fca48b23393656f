/**
 * The postback receiver, `POST /hooks/{id}`. `{id}` is the receiver id the
 * console put in the callback URL when it registered the hook, or a webhook
 * record id. The body is the platform's array of `{ webhook, activity }`,
 * signed with `Authorization: JiveEXTN ...` (PLATFORM.md): the header is
 * checked with the community's client secret, in constant time, within a
 * five-minute window. A receiver id without a mapping (a hook that
 * reconcile adopted after an interrupted registration) is found through the
 * postback's `webhook` URL when that record's callback is this receiver.
 * Answers: 413 for a body over 1 MiB, 404 for an
 * unknown hook, 401 for a missing or bad signature, 400 for a body that is
 * not a JSON array, 200 `{ received }` once stored.
 *
 * @module
 */

import type { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Webhook } from "../../webhooks/mod.ts";
import { receiverByHookKey, receiverKey } from "../lib/_keys.ts";
import { withLockRetry } from "../../webhooks/_kv.ts";
import type { ConsoleEnv, Deps } from "../lib/context.ts";
import { verifyJiveExtn } from "../../webhooks/mod.ts";

/** Largest postback body accepted: 1 MiB. */
export const MAX_POSTBACK_BYTES = 1024 * 1024;

/** Finds the record a receiver id (or a record id) stands for. */
export async function resolveReceiver(
  deps: Deps,
  id: string,
): Promise<Webhook | null> {
  if (!id || id.length > 200) return null;
  const mapped = await deps.kv.get<{ hookId: string }>(receiverKey(id));
  return await deps.webhooks.findByID(mapped.value?.hookId ?? id);
}

/**
 * Finds the record of a receiver id that has no mapping yet: a hook whose
 * registration was interrupted and later adopted by reconcile. The postback
 * names its hook (`webhook`, the self URL); the record found that way must
 * have exactly this receiver as its callback. Nothing is written here: the
 * caller saves the mapping with {@linkcode saveReceiver} once the postback's
 * signature is checked.
 */
async function findAdoptable(
  deps: Deps,
  id: string,
  body: string,
): Promise<Webhook | null> {
  if (!id || id.length > 200) return null;
  let ref: unknown;
  try {
    const items = JSON.parse(body);
    ref = Array.isArray(items) ? items[0]?.webhook : undefined;
  } catch {
    return null;
  }
  if (typeof ref !== "string" || ref === "") return null;
  const callback = `${deps.publicUrl}/hooks/${id}`;
  return (await deps.webhooks.findByWebhookURL(ref)).find((w) => w.entity?.callback === callback) ?? null;
}

/** Saves the mapping of a receiver id to its record. */
async function saveReceiver(deps: Deps, id: string, hook: Webhook): Promise<void> {
  await withLockRetry(() =>
    deps.kv.atomic()
      .set(receiverKey(id), { hookId: hook.id })
      .set(receiverByHookKey(hook.id, id), true)
      .commit()
  );
}

/** Adds the receiver to `app`. */
export function receiverRoutes(app: Hono<ConsoleEnv>, deps: Deps): void {
  app.post(
    "/hooks/:id",
    bodyLimit({
      maxSize: MAX_POSTBACK_BYTES,
      onError: (c) => c.json({ error: "Payload too large (limit 1 MiB)" }, 413),
    }),
    async (c) => {
      const id = c.req.param("id");
      const text = await c.req.text();
      const known = await resolveReceiver(deps, id);
      const hook = known ?? await findAdoptable(deps, id, text);
      if (!hook) return c.json({ error: "Unknown webhook" }, 404);
      const community = await deps.webhooks.findWebhookCommunity(hook);
      const secret = community?.clientSecret;
      const header = c.req.header("authorization");
      if (!secret) {
        return c.json(
          { error: "Cannot verify: the community has no client secret" },
          401,
        );
      }
      let reason: string | null = null;
      try {
        const result = await verifyJiveExtn(header, secret);
        if (!result.ok) reason = result.reason;
        else if (result.tenantId !== hook.tenantId) {
          reason = "The signature names another tenant";
        }
      } catch {
        reason = "The community's client secret cannot verify signatures";
      }
      if (reason) return c.json({ error: `Unauthorized: ${reason}` }, 401);
      if (!known) await saveReceiver(deps, id, hook);
      let items: unknown;
      try {
        items = JSON.parse(text);
      } catch {
        return c.json({ error: "The body is not JSON" }, 400);
      }
      if (!Array.isArray(items)) {
        return c.json({ error: "The body must be an array of postbacks" }, 400);
      }
      const stored = await deps.deliveries.add(hook.id, items);
      return c.json({ received: stored.length });
    },
  );
}
