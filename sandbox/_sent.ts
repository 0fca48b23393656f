// The postbacks the sandbox sent, kept three days as the platform keeps its
// recent deliveries, so that one can be delivered again ("Redeliver"): by
// its hook and the timestamp of its signature, which every receiver logs
// (the `Authorization` header's `timestamp`, not a secret). No header of
// the postback is added for this: the platform sends no delivery id.

import { sentKey } from "./_keys.ts";

/** How long a sent postback is kept for redelivery. */
export const SENT_KEPT_MS = 3 * 24 * 3600_000;

/** A postback as sent. */
export interface SentPostback {
  /** The event it reported. */
  event: string;
  /** The activity's verb. */
  verb: string;
  /** The body exactly as sent (a JSON array of one `{ webhook, activity }`). */
  body: string;
  /** When it was sent (ms). */
  sentAt: number;
}

/** Keeps a postback about to be sent; a failure to keep it never stops the postback. */
export async function keepSent(kv: Deno.Kv, webhookId: string, timestamp: number, sent: SentPostback): Promise<void> {
  // A value holds 64 KiB: a body beyond what fits (two URLs of 8,192 characters fit) is not kept.
  if (sent.body.length > 60_000) return;
  await kv.set(sentKey(webhookId, timestamp), sent, { expireIn: SENT_KEPT_MS }).catch(() => {});
}

/** The postback sent to a hook with this signature timestamp, if still kept. */
export async function findSent(kv: Deno.Kv, webhookId: string, timestamp: number): Promise<SentPostback | null> {
  return (await kv.get<SentPostback>(sentKey(webhookId, timestamp))).value;
}
