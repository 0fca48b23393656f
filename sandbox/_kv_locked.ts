/**
 * The sandbox's view of its KV: each write (and read) is made again while another process holds the write lock of
 * a KV file the consoles share ("database is locked", SQLite's busy snapshot, answered at once), as the console's
 * and the relay's own KV calls are (Module A's `retryWhileLocked`). The sandbox stands in for the platform, which
 * a busy moment of the console's KV never fails.
 *
 * @module
 */

import { retryWhileLocked } from "../webhooks/mod.ts";

const RETRIED = new Set<PropertyKey>(["get", "getMany", "set", "delete"]);

/** `kv` with its reads, writes and atomic commits retried while a shared KV file is locked. */
export function retryingLocks(kv: Deno.Kv): Deno.Kv {
  return new Proxy(kv, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (name === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          // A commit that met the lock wrote nothing: the same checks and mutations are sent again.
          op.commit = () => retryWhileLocked(commit);
          return op;
        };
      }
      if (typeof value !== "function") return value;
      const call = (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args);
      return RETRIED.has(name)
        ? (...args: unknown[]) => retryWhileLocked(() => call(...args) as Promise<unknown>)
        : call;
    },
  });
}
