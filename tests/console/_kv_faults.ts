// KV wrappers of the delivery store tests: one that runs a hook before each
// commit, one that fails chosen commits and counts them, one that counts the
// entries its lists yield; and two handles on one KV file.

/** A KV whose every `atomic().commit()` runs `before(n)` first (n counts commits from 1) and then commits. */
export function onCommit(kv: Deno.Kv, before: (n: number) => Promise<void> | void): Deno.Kv {
  let commits = 0;
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = async () => {
            await before(++commits);
            return await commit();
          };
          return op;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A KV whose `atomic().commit()` throws on the commits numbered in `failing` (1-based). */
export function faulty(kv: Deno.Kv, failing: Set<number>): { kv: Deno.Kv; commits: () => number } {
  let commits = 0;
  const wrapped = onCommit(kv, (n) => {
    commits = n;
    if (failing.has(n)) throw new Error("killed");
  });
  return { kv: wrapped, commits: () => commits };
}

/** A KV that counts the entries its `list` calls yield. */
export function counting(kv: Deno.Kv): { kv: Deno.Kv; read: () => number } {
  let read = 0;
  const wrapped = new Proxy(kv, {
    get(target, prop) {
      if (prop === "list") {
        return async function* (...args: Parameters<Deno.Kv["list"]>) {
          for await (const entry of target.list(...args)) {
            read++;
            yield entry;
          }
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv: wrapped, read: () => read };
}

/** Runs `fn` with two handles on one new KV file (as two console processes have), then closes them and removes it. */
export async function withTwoHandles(fn: (a: Deno.Kv, b: Deno.Kv) => Promise<void>): Promise<void> {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const [a, b] = [await Deno.openKv(path), await Deno.openKv(path)];
  try {
    await fn(a, b);
  } finally {
    a.close();
    b.close();
    await Deno.remove(path);
  }
}
