// The server's latency knob: each answer held back by a fixed time, so a KV
// on loopback stands in for one in another region. A watch stream starts
// late by that time, and each of its chunks reaches the client that long
// after the server sent it (in order, never sooner than the chunk before).

/** The longest latency: a timer past 2^31 - 1 ms fires after 1 ms, holding nothing back. */
export const MAX_LATENCY_MS = 2 ** 31 - 1;

/**
 * Checks a latency option: a non-negative finite number of milliseconds, at most {@linkcode MAX_LATENCY_MS}.
 * `name` is how the caller names it (`'latencyMs'`, `'--latency'`).
 */
export function checkLatency(value: unknown, name: string): number {
  if (typeof value !== "number") {
    throw new TypeError(`Cannot start the KV Connect server: '${name}' must be a number of milliseconds, got ${value}`);
  }
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(
      `Cannot start the KV Connect server: '${name}' must be a non-negative finite number of milliseconds, got ${value}`,
    );
  }
  if (value > MAX_LATENCY_MS) {
    throw new RangeError(
      `Cannot start the KV Connect server: '${name}' must be at most ${MAX_LATENCY_MS} milliseconds (about 24.8 days), got ${value}`,
    );
  }
  return value;
}

/** Resolves after `ms` (at once for 0). */
export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/**
 * `source`, each chunk (and its end, or its error) passed on `ms` after it
 * was read. The source is read as fast as it gives, as a network carries
 * what is sent whether or not the far side has read the last chunk yet.
 */
export function delayedStream(source: ReadableStream<Uint8Array>, ms: number): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let cancelled = false;
  const later = (fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!cancelled) fn();
    }, ms);
    timers.add(timer);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      (async () => {
        for (;;) {
          const next = await reader.read();
          if (next.done) return later(() => controller.close());
          const chunk = next.value;
          later(() => controller.enqueue(chunk));
        }
      })().catch((error) => later(() => controller.error(error)));
    },
    cancel(reason) {
      cancelled = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return reader.cancel(reason);
    },
  });
}
