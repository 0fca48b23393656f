// For the trimmer's race tests: holds back one listing of a KV handle, the
// first that `picks` chooses, until the test releases it; the listing then
// reads the store as it is at release, so another worker's commits landed
// meanwhile are what it sees.

/**
 * Wraps `kv.list` so that the first listing `picks` chooses reads nothing
 * until `release()`; `held` resolves once that listing is waiting.
 */
export function holdFirstList(
  kv: Deno.Kv,
  picks: (selector: Deno.KvListSelector, options: Deno.KvListOptions | undefined) => boolean,
): { held: Promise<void>; release: () => void } {
  let signal: () => void = () => {};
  let release: () => void = () => {};
  const held = new Promise<void>((r) => signal = r);
  const released = new Promise<void>((r) => release = r);
  let done = false;
  const list = kv.list.bind(kv);
  kv.list = (<T>(selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
    if (done || !picks(selector, options)) return list<T>(selector, options);
    done = true;
    signal();
    return (async function* () {
      await released;
      yield* list<T>(selector, options);
    })() as unknown as Deno.KvListIterator<T>;
  }) as Deno.Kv["list"];
  return { held, release };
}
