// A KV that refuses a commit of more than ten checks, as denokv (KV Connect)
// refuses it, and counts what it saw: for tests of the ten-check limit
// without a remote server.

/** What the limited KV saw. */
export interface CheckCount {
  /** Commits refused for carrying more than ten checks. */
  refused: number;
  /** The most checks one commit that was not refused carried. */
  largest: number;
}

/** Wraps `raw` so that its atomic commits of more than ten checks reject; returns the KV and its counts. */
export function limitedKv(raw: Deno.Kv): { kv: Deno.Kv; seen: CheckCount } {
  const seen: CheckCount = { refused: 0, largest: 0 };
  const kv = new Proxy(raw, {
    get(target, prop) {
      if (prop !== "atomic") {
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        const op = target.atomic();
        let checks = 0;
        const check = op.check.bind(op);
        op.check = (...c: Deno.AtomicCheck[]) => {
          checks += c.length;
          return check(...c);
        };
        const commit = op.commit.bind(op);
        op.commit = () => {
          if (checks > 10) {
            seen.refused++;
            return Promise.reject(new TypeError("Too many checks: at most 10"));
          }
          seen.largest = Math.max(seen.largest, checks);
          return commit();
        };
        return op;
      };
    },
  });
  return { kv, seen };
}
