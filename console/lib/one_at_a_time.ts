/**
 * Runs tasks one at a time per key, in the order they come, within this
 * process: a check and the write it allows (say, "no destination has this
 * URL yet", then adding one) stay together when the same form is sent twice
 * at once.
 *
 * @module
 */

/** A runner: `run(key, fn)` starts `fn` once every earlier task of `key` has settled, and answers what it answers. */
export type OneAtATime = <T>(key: string, fn: () => Promise<T>) => Promise<T>;

/** A new runner with no task in progress. */
export function oneAtATime(): OneAtATime {
  const running = new Map<string, Promise<unknown>>();
  return async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const run = (running.get(key) ?? Promise.resolve()).catch(() => {}).then(fn);
    running.set(key, run);
    try {
      return await run;
    } finally {
      if (running.get(key) === run) running.delete(key);
    }
  };
}
