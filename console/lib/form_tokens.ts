/**
 * One-time form tokens: a form that must not act twice (Register: Back,
 * then submit again, would make a second identical hook) carries a random
 * token; its first submission takes it, and a later one with the same token
 * learns what the first did. Kept in KV for a day.
 *
 * @module
 */

import { formTokenKey } from "./kv_keys.ts";
import { retryLocked } from "./kv_retry.ts";

/** How long a taken token is remembered. */
const TOKEN_TTL_MS = 24 * 3600_000;

/** What a token's first submission left: in progress, or the record it made. */
export interface TokenUse {
  /** The webhook record the submission made, once it is done. */
  hookId?: string;
  /** The submission ended without knowing whether the platform made the hook (it did not answer in time). */
  uncertain?: boolean;
}

/** Whether `value` looks like a form token (random base64url, short). */
function valid(value: string): boolean {
  return /^[A-Za-z0-9_-]{16,100}$/.test(value);
}

/** One-time form tokens in KV. */
export class FormTokens {
  #kv: Deno.Kv;

  /** @param kv the console's KV */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /**
   * Takes a token for a submission: `null` when this submission is the
   * first (go ahead), else what the first one left. A malformed token is
   * refused with a `TypeError`.
   */
  async take(token: string): Promise<TokenUse | null> {
    if (!valid(token)) throw new TypeError("The form's one-time token is not valid");
    const key = formTokenKey(token);
    for (;;) {
      const res = await retryLocked(() =>
        this.#kv.atomic().check({ key, versionstamp: null }).set(key, {}, { expireIn: TOKEN_TTL_MS }).commit()
      );
      if (res.ok) return null;
      const entry = await this.#kv.get<TokenUse>(key);
      if (entry.value) return entry.value;
      // Expired between the check and the read: take it again.
    }
  }

  /** Gives a token back after a submission that changed nothing, so that the form may be sent again. */
  async release(token: string): Promise<void> {
    if (valid(token)) await retryLocked(() => this.#kv.delete(formTokenKey(token)));
  }

  /** Records that a token's submission ended not knowing whether the platform made the hook. */
  async uncertain(token: string): Promise<void> {
    if (!valid(token)) return;
    await retryLocked(() => this.#kv.set(formTokenKey(token), { uncertain: true }, { expireIn: TOKEN_TTL_MS }));
  }

  /** Records what a token's submission made. */
  async done(token: string, hookId: string): Promise<void> {
    if (!valid(token)) return;
    await retryLocked(() => this.#kv.set(formTokenKey(token), { hookId }, { expireIn: TOKEN_TTL_MS }));
  }
}
