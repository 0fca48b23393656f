// For the kill tests' children: numbers a KV's commits as they land (each
// prints "commit N"), and holds the one after the `hold`-th until the process
// is killed, so a test can kill it (SIGKILL) between two commits of one call.

/**
 * Wraps `kv.atomic()` so that every commit waits `delayMs` first, prints
 * "commit N" once it landed, and the commit after the `hold`-th never goes.
 */
export function holdCommits(kv: Deno.Kv, hold: number, delayMs = 0): void {
  let landed = 0;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = async () => {
      if (landed === hold) await new Promise(() => setInterval(() => {}, 60_000)); // until killed
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const result = await commit();
      console.log(`commit ${++landed}`);
      return result;
    };
    return op;
  };
}
