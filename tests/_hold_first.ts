// For the race tests: holds back one commit of a KV handle, the first whose
// mutations touch a key that `touches` picks, until the test releases it, so
// a test can land another worker's commit just before it.

type Mutation = "set" | "delete" | "sum";

/**
 * Wraps `kv.atomic()` so that the first commit with a `set`, `delete` or `sum` of a key picked by `touches` waits
 * for `release()`; `held` resolves once that commit is waiting.
 */
export function holdFirst(
  kv: Deno.Kv,
  touches: (key: Deno.KvKey, mutation: Mutation) => boolean,
): { held: Promise<void>; release: () => void } {
  let signal: () => void = () => {};
  let release: () => void = () => {};
  const held = new Promise<void>((r) => signal = r);
  const released = new Promise<void>((r) => release = r);
  let done = false;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    let picked = false;
    const [set, del, sum] = [op.set.bind(op), op.delete.bind(op), op.sum.bind(op)];
    op.set = (key, value, options) => {
      picked ||= touches(key, "set");
      return set(key, value, options);
    };
    op.delete = (key) => {
      picked ||= touches(key, "delete");
      return del(key);
    };
    op.sum = (key, n) => {
      picked ||= touches(key, "sum");
      return sum(key, n);
    };
    const commit = op.commit.bind(op);
    op.commit = async () => {
      if (picked && !done) {
        done = true;
        signal();
        await released;
      }
      return await commit();
    };
    return op;
  };
  return { held, release };
}
