/**
 * Ending a child process a test started: a signal, then at most `graceMs`
 * for it to exit; past that, SIGKILL. With `OTEL_DENO=true` a Deno child
 * that calls `Deno.exit` can hang for good in its exit, its threads all
 * waiting on locks (Deno's metrics reader waits for the exiting isolate;
 * docs/observability.md, "Ending the process"): a test that awaits the
 * status alone then never ends. What such a test checks was checked before
 * the child was stopped.
 *
 * @module
 */

/** Sends `signal`, waits up to `graceMs` for the exit, then kills; resolves the status and whether it was killed. */
export async function endChild(
  child: Deno.ChildProcess,
  signal: Deno.Signal,
  graceMs = 10_000,
): Promise<{ status: Deno.CommandStatus; killed: boolean }> {
  try {
    child.kill(signal);
  } catch {
    // Already gone.
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), graceMs));
  try {
    const first = await Promise.race([child.status, late]);
    if (first !== "late") return { status: first, killed: false };
    child.kill("SIGKILL");
    return { status: await child.status, killed: true };
  } finally {
    clearTimeout(timer);
  }
}
