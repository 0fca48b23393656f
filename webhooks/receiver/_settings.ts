// A receiver's options, checked once when it is made: the consumer (exactly
// one of `onPostback` and `write`), the KV, the limits and the window.

import { checkWindow, DEFAULT_MAX_AGE_MS, DEFAULT_MAX_FUTURE_MS } from "../signature/mod.ts";
import { kvOf } from "../kv/mod.ts";
import { positiveInteger } from "./_receive.ts";
import { checkSequence } from "./_receive_write.ts";
import type { Webhooks } from "../webhooks.ts";
import type { ReceiverOptions } from "./receiver_types.ts";

/** A receiver's options with their defaults, checked. */
export interface Settings {
  kv: Deno.Kv;
  /** Whether `kv` is the KV `hooks` was made over, so its keys can be read and checked. */
  owned: boolean;
  onPostback: ReceiverOptions["onPostback"];
  write: ReceiverOptions["write"];
  onAttempt: ReceiverOptions["onAttempt"];
  accept: ReceiverOptions["accept"];
  sequence: Deno.KvKey | undefined;
  maxBytes: number;
  maxItems: number;
  bodyTimeoutMs: number;
  claimLeaseMs: number;
  maxAgeMs: number;
  maxFutureMs: number;
  now: () => number;
}

/** Checks `createReceiver`'s arguments; throws the `TypeError` or `RangeError` that names what is wrong. */
export function settingsOf(hooks: Webhooks, options: ReceiverOptions): Settings {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("Cannot create receiver: 'options' must be an object with 'onPostback' or 'write'");
  }
  if ((options.onPostback === undefined) === (options.write === undefined)) {
    throw new TypeError("Cannot create receiver: give exactly one of 'onPostback' and 'write'");
  }
  for (const name of ["onPostback", "write", "onAttempt", "accept", "now"] as const) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      throw new TypeError(`Cannot create receiver: '${name}' must be a function`);
    }
  }
  // What an async write adds after its first await would miss the commit that the 200 stands for.
  if (options.write !== undefined && /^\[object Async/.test(Object.prototype.toString.call(options.write))) {
    throw new TypeError(
      "Cannot create receiver: 'write' must be a synchronous function (it adds to the claim's commit and awaits nothing), got an async function",
    );
  }
  if (typeof hooks !== "object" || hooks === null || typeof hooks.communities?.findByTenantID !== "function") {
    throw new TypeError("Cannot create receiver: 'hooks' must be the store made by createWebhooks");
  }
  const kv = options.kv ?? kvOf(hooks);
  if (kv === undefined || typeof kv.atomic !== "function") {
    throw new TypeError("Cannot create receiver: 'hooks' was not made by createWebhooks; pass the KV as 'kv'");
  }
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const maxFutureMs = options.maxFutureMs ?? DEFAULT_MAX_FUTURE_MS;
  const settings: Settings = {
    kv,
    owned: kvOf(hooks) === kv,
    onPostback: options.onPostback,
    write: options.write,
    onAttempt: options.onAttempt,
    accept: options.accept,
    sequence: checkSequence(options.sequence, options.write !== undefined),
    maxBytes: positiveInteger(options.maxBytes, "maxBytes", 1024 * 1024),
    maxItems: positiveInteger(options.maxItems, "maxItems", 100),
    bodyTimeoutMs: positiveInteger(options.bodyTimeoutMs, "bodyTimeoutMs", 10_000),
    claimLeaseMs: positiveInteger(options.claimLeaseMs, "claimLeaseMs", 30_000),
    maxAgeMs,
    maxFutureMs,
    now: options.now ?? Date.now,
  };
  checkWindow(maxAgeMs, maxFutureMs, "create receiver");
  if (!Number.isFinite(maxAgeMs)) {
    throw new RangeError("Cannot create receiver: 'maxAgeMs' must be finite: a claim is kept for the window");
  }
  return settings;
}
