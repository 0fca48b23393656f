// How the console tests' set-up (`withSignedIn` in `_helpers.ts`) closes its console: within a bound, so that a test
// that fails while a request of another client is still under way fails with its own message rather than hang.

/** How long `withSignedIn` waits for its console to close: after a test's own failure, and after a pass. */
const CLOSE_WITHIN_MS = { failed: 3_000, passed: 30_000 };

/**
 * Closes `t`, waiting at most {@linkcode CLOSE_WITHIN_MS}: the server's shutdown waits for every connection to end,
 * and a request whose body a test left unfinished (a stream never closed, an assertion failing before the test ends
 * it) keeps its connection for good, so the test hung in its teardown instead of failing with its own message. When
 * `failed`, the test's own error goes on (said on stderr if the console is left open); else the hang fails the test.
 */
export async function closeWithin(t: { origin: string; close(): Promise<void> }, failed: boolean): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ms = failed ? CLOSE_WITHIN_MS.failed : CLOSE_WITHIN_MS.passed;
  const late = new Promise<"late">((resolve) => timer = setTimeout(() => resolve("late"), ms));
  const closing = t.close();
  try {
    if (await Promise.race([closing.then(() => "closed" as const), late]) === "closed") return;
  } finally {
    clearTimeout(timer);
  }
  closing.catch(() => {}); // left behind: its end, whenever it comes, is no test's
  const what = `the console at ${t.origin} did not close within ${ms} ms (a request is still open)`;
  if (failed) console.error(`${what}; the test's own error follows`);
  else throw new Error(`${what}: end every request body and stream the test started`);
}
