// The delivery store's options with their defaults, and the shape of a postback's items (_store.ts).

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

/**
 * The store's options with their defaults: 500 rows, 7 days, a settle
 * window of 10 s.
 *
 * @throws {RangeError} When `retain` is not a positive integer or `settleMs` is negative
 */
export function storeSettings(options: DeliveryStoreOptions): Required<DeliveryStoreOptions> {
  const retain = options.retain ?? 500;
  const maxAgeMs = options.maxAgeMs ?? 7 * 24 * 3600_000;
  const settleMs = options.settleMs ?? 10_000;
  if (!Number.isInteger(retain) || retain < 1) {
    throw new RangeError(`Cannot keep deliveries: 'retain' must be a positive integer, got ${retain}`);
  }
  if (!Number.isFinite(settleMs) || settleMs < 0) {
    throw new RangeError(`Cannot keep deliveries: 'settleMs' must be a non-negative number, got ${settleMs}`);
  }
  return { retain, maxAgeMs, settleMs };
}
