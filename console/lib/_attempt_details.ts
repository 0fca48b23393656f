/**
 * How accepted postbacks' requests went (headers without the signature, the
 * verdict's figures, the time taken), kept for their deliveries' detail page.
 * Written in batches, one atomic operation for all that arrived within 50
 * ms: under load that is one write for many postbacks, off their answers'
 * path. Each expires with the deliveries, and trimming deletes it too.
 *
 * @module
 */

import type { ReceiverAttempt } from "../../webhooks/mod.ts";
import type { AttemptInfo } from "./_delivery_item.ts";
import { retryLocked } from "./kv_retry.ts";

/** How long attempt details wait to be written with others. */
const BATCH_MS = 50;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Attempt details as stored: UTF-8 JSON bytes, or (written by earlier versions) JSON text or the object itself. */
export function attemptInfoOf(value: unknown): AttemptInfo | null {
  if (typeof value === "string" || value instanceof Uint8Array) {
    try {
      return JSON.parse(typeof value === "string" ? value : decoder.decode(value)) as AttemptInfo;
    } catch {
      return null;
    }
  }
  return value && typeof value === "object" ? value as AttemptInfo : null;
}

/** The attempt details of accepted postbacks, written in batches. */
export class AttemptDetails {
  #kv: Deno.Kv;
  #expireIn: number;
  #waiting = new Map<string, [Deno.KvKey, AttemptInfo]>();
  /** The batch being gathered: written when its timer fires or on flush. */
  #next: Promise<void> | null = null;
  #due: (() => void) | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Batches taken and being written. */
  #writing = new Set<Promise<void>>();

  /**
   * @param kv the console's KV
   * @param expireIn how long details live, in ms (the deliveries' maximum age)
   */
  constructor(kv: Deno.Kv, expireIn: number) {
    this.#kv = kv;
    this.#expireIn = expireIn;
  }

  /** Queues a report for the next batch, to be kept at `key`; resolves once that batch is written. */
  record(attempt: ReceiverAttempt, key: Deno.KvKey): Promise<void> {
    const { headers, tenantId, clientId, timestampAgeMs, itemCount, durationMs } = attempt;
    // Its keys hold strings and numbers only.
    this.#waiting.set(JSON.stringify(key), [key, {
      headers,
      tenantId,
      clientId,
      timestampAgeMs,
      itemCount,
      durationMs,
    }]);
    // A report that comes while a batch is written waits for the next batch, never for one already taken.
    this.#next ??= new Promise<void>((resolve) => {
      this.#due = resolve;
      this.#timer = setTimeout(resolve, BATCH_MS);
    }).then(() => {
      const batch = [...this.#waiting.values()];
      this.#waiting.clear();
      this.#next = this.#due = null;
      const writing = this.#write(batch);
      this.#writing.add(writing);
      writing.catch(() => {}).finally(() => this.#writing.delete(writing));
      return writing;
    });
    return this.#next;
  }

  /** Writes the waiting batch now, and waits for those being written. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    const next = this.#next;
    this.#due?.();
    await Promise.allSettled([next, ...this.#writing]);
  }

  /** The details kept at `key`, when recorded. */
  async of(key: Deno.KvKey): Promise<AttemptInfo | null> {
    return attemptInfoOf((await this.#kv.get(key)).value);
  }

  async #write(batch: [Deno.KvKey, AttemptInfo][]): Promise<void> {
    for (let i = 0; i < batch.length; i += 200) {
      const op = this.#kv.atomic();
      // As JSON bytes, which KV keeps as they are: an object graph (or even a string) costs a V8 serialisation.
      for (const [key, info] of batch.slice(i, i + 200)) {
        op.set(key, encoder.encode(JSON.stringify(info)), { expireIn: this.#expireIn });
      }
      await retryLocked(() => op.commit());
    }
  }
}
