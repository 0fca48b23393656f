/**
 * The live view's wake-up: one KV watch of the keys the log's writers bump
 * with `sum` after their commits (the written shards, at most ten keys), with
 * a poll as the floor. `kv.watch` reports this process's writes (and all
 * writes over KV Connect) at once; on a local KV file it misses other
 * processes' writes, so polling bounds their delay to `pollMs`. The listener
 * reads the log's settle window again (_live.ts), so a commit that lands
 * below a number it saw is not skipped.
 *
 * @module
 */

/**
 * Calls `onChange` once at the start, after each change of `keys` (several
 * quick changes may be reported once), and at least every `pollMs`, until
 * `signal` aborts. Where the KV cannot watch, it polls only.
 */
export async function watchKeys(
  kv: Deno.Kv,
  keys: Deno.KvKey[],
  signal: AbortSignal,
  onChange: () => Promise<void>,
  pollMs: number,
): Promise<void> {
  if (signal.aborted) return;
  let reader: ReadableStreamDefaultReader<unknown> | null = null;
  try {
    reader = kv.watch(keys).getReader();
  } catch {
    reader = null; // this KV cannot watch: poll only
  }
  let wake: () => void = () => {};
  const stop = () => {
    wake();
    reader?.cancel().catch(() => {});
  };
  signal.addEventListener("abort", stop, { once: true });
  // One read at a time, and one reaction on it: its outcome is kept in
  // `changed` and wakes whichever wait is current. A read still pending after
  // a poll is reused, never raced again (each race would leave a reaction on
  // it, one per poll, for as long as the KV stays quiet).
  let reading = false;
  let changed: boolean | null = null;
  const read = (watch: ReadableStreamDefaultReader<unknown>): void => {
    reading = true;
    watch.read().then((r) => !r.done, () => false).then((more) => {
      reading = false;
      changed = more;
      wake();
    });
  };
  try {
    while (!signal.aborted) {
      if (reader && !reading && changed === null) read(reader);
      if (changed === null) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, pollMs);
        });
        clearTimeout(timer);
      }
      if (signal.aborted) break;
      if (changed === false) reader = null; // the watch ended: poll only
      changed = null;
      // The first read is the current value: reporting it too closes the
      // gap between the caller's first listing and the start of the watch.
      await onChange();
    }
  } finally {
    signal.removeEventListener("abort", stop);
    await reader?.cancel().catch(() => {});
  }
}
