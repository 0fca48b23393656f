// What the memory tests' child processes measure: heap plus external bytes
// after a full garbage collection. The child runs with --v8-flags=--expose-gc.

const gc = (globalThis as unknown as { gc?: () => void }).gc;

/** Heap plus external bytes after two full collections; throws when the process was not started with --expose-gc. */
export function measuredBytes(): number {
  if (typeof gc !== "function") throw new Error("Run this child with --v8-flags=--expose-gc");
  gc();
  gc();
  const usage = Deno.memoryUsage();
  return usage.heapUsed + usage.external;
}
