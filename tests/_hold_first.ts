// For the race tests: holds back one call of a KV handle (the first commit
// whose mutations touch a key a test picks, or the first listing it picks)
// until the test releases it, so a test can land another worker's commit
// just before it.

type Mutation = "set" | "delete" | "sum";

/** What a test holds: `held` resolves once the call is waiting; `release()` lets it go on. */
export interface Hold {
  held: Promise<void>;
  release: () => void;
}

/** One gate: the first `pass()` waits until `release()`, signalling `held`; every later one goes through. */
function gate(): Hold & { pass: () => Promise<void> | null } {
  const held = Promise.withResolvers<void>();
  const released = Promise.withResolvers<void>();
  let done = false;
  return {
    held: held.promise,
    release: () => released.resolve(),
    pass() {
      if (done) return null;
      done = true;
      held.resolve();
      return released.promise;
    },
  };
}

/**
 * Wraps `kv.atomic()` so that the first commit with a `set`, `delete` or `sum` of a key picked by `touches` waits
 * for `release()`; `held` resolves once that commit is waiting.
 */
export function holdFirst(kv: Deno.Kv, touches: (key: Deno.KvKey, mutation: Mutation) => boolean): Hold {
  const { held, release, pass } = gate();
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
      if (picked) await pass();
      return await commit();
    };
    return op;
  };
  return { held, release };
}

/**
 * Wraps `kv.list` so that the first listing `picks` chooses reads nothing until `release()` (it then reads the store
 * as it is at release, so another worker's commits landed meanwhile are what it sees); `held` resolves once that
 * listing is waiting.
 */
export function holdFirstList(
  kv: Deno.Kv,
  picks: (selector: Deno.KvListSelector, options: Deno.KvListOptions | undefined) => boolean,
): Hold {
  const { held, release, pass } = gate();
  const list = kv.list.bind(kv);
  kv.list = (<T>(selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
    if (!picks(selector, options)) return list<T>(selector, options);
    const waiting = pass();
    if (waiting === null) return list<T>(selector, options);
    return (async function* () {
      await waiting;
      yield* list<T>(selector, options);
    })() as unknown as Deno.KvListIterator<T>;
  }) as Deno.Kv["list"];
  return { held, release };
}
