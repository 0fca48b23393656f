/**
 * A real KV (`:memory:`) whose reads are counted and held until
 * `release()`: the probes' tests use it to stand for a KV that hangs.
 * `waiting` resolves once the first read has started; `release()` lets every
 * read through from then on and resolves once those held have ended.
 */
export interface HeldKv {
  kv: Deno.Kv;
  reads: () => number;
  release: () => Promise<unknown>;
  waiting: Promise<void>;
}

/** Opens a {@linkcode HeldKv}. */
export async function heldKv(): Promise<HeldKv> {
  const kv = await Deno.openKv(":memory:");
  let reads = 0;
  const held: Promise<unknown>[] = [];
  let release!: () => void;
  let gate = new Promise<void>((resolve) => release = resolve);
  let arrived!: () => void;
  const waiting = new Promise<void>((resolve) => arrived = resolve);
  const get = kv.get.bind(kv);
  kv.get = ((key: Deno.KvKey) => {
    reads++;
    arrived();
    const read = gate.then(() => get(key));
    held.push(read);
    return read;
  }) as Deno.Kv["get"];
  return {
    kv,
    reads: () => reads,
    release: () => {
      release();
      gate = Promise.resolve();
      return Promise.all(held);
    },
    waiting,
  };
}
