// Wakes a worker's sleeping loop when the outbox counter moves, or after a
// time: one promise and timer per wait.

/**
 * Wakes a sleeping loop: `wait(ms)` resolves after `ms`, or at once when `notify()` was called since the last
 * wait; each wait makes its own promise and timer (no long-lived promise that every wait races).
 */
export class Wake {
  #pending = false;
  #resolve: (() => void) | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** Wakes the current wait, or makes the next one return at once. */
  notify(): void {
    if (this.#resolve) {
      const resolve = this.#resolve;
      this.#resolve = null;
      clearTimeout(this.#timer);
      resolve();
    } else {
      this.#pending = true;
    }
  }

  /** Sleeps up to `ms` (0 or less: no sleep) unless woken. */
  wait(ms: number): Promise<void> {
    if (this.#pending || ms <= 0) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#resolve = resolve;
      this.#timer = setTimeout(() => {
        this.#resolve = null;
        resolve();
      }, ms);
    });
  }
}
