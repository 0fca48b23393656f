// The delivery store's options and the shape of a postback's items (_store.ts).

/** Most items one postback may hold here: its summaries share one atomic operation. */
export const MAX_POSTBACK_ITEMS = 120;

/** One item of a postback and the webhook record it was delivered to. */
export interface PostbackEntry {
  /** The webhook record id. */
  hookId: string;
  /** The item as received (`{ webhook, activity }`). */
  item: unknown;
  /** Whether it came from the console's "Replay to receiver", not from the platform. */
  replay?: boolean;
  /** The community's tenant id. */
  tenantId?: string;
}

/** Options of {@linkcode DeliveryStore}. */
export interface DeliveryStoreOptions {
  /** How many deliveries to keep (newest); default 500. */
  retain?: number;
  /** How long a delivery lives at most, in ms; default 7 days. */
  maxAgeMs?: number;
  /**
   * How late (ms) a commit may land below numbers already read: the live
   * view reads this much of the log again, and the hook index stays this far
   * behind; default 10 s.
   */
  settleMs?: number;
}
