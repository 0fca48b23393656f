/**
 * Retries a KV operation while another process holds the database file's
 * lock (`TypeError: database is locked`, TOOLCHAIN.md): several console
 * processes may share one local KV file.
 *
 * @module
 */

/** Attempts made while the database is locked. */
const ATTEMPTS = 20;

function isLocked(error: unknown): boolean {
  return error instanceof Error && /database is locked|SQLITE_BUSY/i.test(error.message);
}

/**
 * Runs `op`, again after a short random pause while the database is locked.
 *
 * @param op the KV operation
 * @returns what `op` resolves with
 * @throws what `op` throws, once the attempts are used up or for any other error
 */
export async function withLockRetry<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await op();
    } catch (err) {
      if (!isLocked(err) || attempt >= ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
    }
  }
}
