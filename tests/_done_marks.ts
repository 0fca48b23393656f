// Tests of the receiver's done marks (Module A's and the console's): a KV
// whose commits that mark claims done wait at a gate, the claims in a KV, and
// whether a promise has settled yet.

const CLAIMS = ["webhook_postback_claim"];

/**
 * A KV whose commits that mark claims done wait for `open()` (or fail, when
 * `failing`), counted by size; each such commit also waits for `onMarks`.
 */
export function gatedDoneMarks(kv: Deno.Kv, failing = false, onMarks?: () => Promise<void> | void) {
  const gate = Promise.withResolvers<void>();
  const groups: number[] = [];
  const wrapped = new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          let marks = 0;
          const set = op.set.bind(op);
          op.set = (key, value, options) => {
            if ((value as { state?: string } | null)?.state === "done") marks++;
            return set(key, value, options);
          };
          const commit = op.commit.bind(op);
          op.commit = async () => {
            if (marks > 0) {
              groups.push(marks);
              await onMarks?.();
              await gate.promise;
              if (failing) throw new Error("the KV went away");
            }
            return await commit();
          };
          return op;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv: wrapped, groups, open: () => gate.resolve() };
}

export async function claims(kv: Deno.Kv): Promise<Deno.KvEntry<{ state: string; leaseUntil: number }>[]> {
  const out = [];
  for await (const entry of kv.list<{ state: string; leaseUntil: number }>({ prefix: CLAIMS })) out.push(entry);
  return out;
}

/** Settles with "settled", or "waiting" when `promise` has not settled after a few turns of the loop. */
export async function state(promise: Promise<unknown>): Promise<"settled" | "waiting"> {
  const timer = new Promise<"waiting">((resolve) => setTimeout(() => resolve("waiting"), 30));
  return await Promise.race([promise.then(() => "settled" as const), timer]);
}
